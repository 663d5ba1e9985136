// DatasetCost: what reading a data set costs a twin run, per split (train
// runs read the training split, inference runs the test/validation split):
// samples, bytes on storage, and how the workload reads it:
//
// - loaded at start (IDX, CIFAR-10 binary, frames): the whole split is read and
//   decoded before the first minibatch (start-up: bytes from storage or
//   page cache, then record_bytes x load_cycles_per_byte per sample on one
//   core); minibatches are then cut from memory.
// - read per sample (image folders of JPEGs, one folder per class): in
//   every epoch the loader reads each sample's file (FileBytesPerSample)
//   and decodes it (JPEG decode, then resize/crop/flip/normalize) on a
//   loader core; the file comes from storage or, once read and when the
//   split fits the board's page cache, from RAM (perf_model.h). Start-up
//   only lists the folders.
// - synthetic (common/synthetic_dataset.h): one random minibatch of the
//   model's own input shape made in memory at start-up and reused; no
//   storage, no decode, no epochs (samples 0). Its `input` is left empty:
//   TwinWorkloadCostFor takes the model's default input instead.
//
// - text (token files, text_dataset.h): loaded at start like IDX; a split
//   is a token stream whose samples are windows of the model's sequence
//   length, so `samples` is left 0 here and TwinWorkloadCostFor sets it
//   from the tokens once the model's seq_len is known (input.size is 0,
//   input.classes the vocabulary).
//
// - speech (WAV files with transcripts, speech_dataset.h): read per sample
//   like image folders: every epoch the loader reads each utterance's WAV
//   and computes its log-mel spectrogram (decode_cycles_per_sample); the
//   model's input is {1, frames, 29} (input.size the default window of 256
//   frames; a run's seq_len overrides it).
//
// Also the tensor a sample gives the model (channels x size x size) and the
// number of classes, so a model can be costed on the data set
// (twin_workload_cost.h). docs/twin-model.md gives the source of every
// figure.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_DATASET_COST_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_DATASET_COST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/platform/twin/model_cost.h"

namespace powersweep {

enum class DatasetFormat {
  kIdxGzip,
  kCifarBinary,
  kImageFolder,
  kSynthetic,
  kFrames,
  kText,
  kBabi,
  kSpeech
};

// "idx", "cifar10", "image-folder", "synthetic", "frames", "text", "babi",
// "speech"
// (WorkloadInfo.dataset_format).
const char* DatasetFormatName(DatasetFormat format);

struct DatasetSplit {
  int64_t samples = 0;
  double storage_bytes = 0;  // files of the split as stored
};

struct DatasetCost {
  std::string name;
  DatasetFormat format = DatasetFormat::kIdxGzip;
  DatasetSplit train;  // read by training runs
  DatasetSplit infer;  // read by inference runs (test / validation split)
  ModelInput input;    // one sample as the model receives it
  // Loaded at start (IDX, CIFAR): decoded bytes per sample (label included)
  // and the cycles to decode one of them (gunzip + parse, or parse only).
  double record_bytes = 0;
  double load_cycles_per_byte = 0;
  // Per sample on the loader (every format): cycles per value of the
  // tensor handed to the model (copy and normalize; for image folders also
  // resize, crop and flip), and for image folders the JPEG decode of one
  // file.
  double transform_cycles_per_value = 0;
  double decode_cycles_per_sample = 0;
  // text: tokens of each split (train, infer).
  int64_t train_tokens = 0;
  int64_t infer_tokens = 0;

  bool LoadedAtStart() const {
    return format != DatasetFormat::kImageFolder &&
           format != DatasetFormat::kSpeech;
  }
  bool Synthetic() const { return format == DatasetFormat::kSynthetic; }
  const DatasetSplit& Split(bool train_split) const {
    return train_split ? train : infer;
  }
  // Mean bytes of one sample's file (image folders).
  double FileBytesPerSample(bool train_split) const;
};

// The data sets the twin can cost, sorted: babi (memnet's bAbI task 1 as
// gen-dataset --format babi writes it), catch-frames (dqn's replay
// memory), cifar10, espeak-words (deepspeech2's utterances),
// fashion-mnist, gld23k, imagenet, mnist, synthetic, wikitext, wordnet.
std::vector<std::string> TwinDatasetNames();

// NotFound naming `dataset` and the known ones.
absl::StatusOr<DatasetCost> DatasetCostFor(const std::string& dataset);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_DATASET_COST_H_
