// Dataset: one split of a labelled image data set on disk, as the loader
// consumes it, and OpenDataset, which recognises the format of a directory.
//
// Formats (see idx_dataset.h, cifar10_dataset.h, image_folder_dataset.h):
//   "idx"           MNIST-format IDX files ({train,t10k}-images-idx3-ubyte)
//   "cifar10"       CIFAR-10 binary batches (data_batch_N.bin, test_batch.bin)
//   "image-folder"  JPEG files in DIR/train/<class>/ and DIR/val/<class>/
//   "frames"        DQN replay memories DIR/{train,test}.frames
//                   (frames_format.h, frames_dataset.h)
//   "text"          token ids: DIR/vocab.txt, DIR/{train,test}.tokens
//                   (text_dataset.h); samples are windows of token ids
//   "babi"          bAbI task files DIR/qa<N>_<name>_{train,test}.txt
//                   (babi_dataset.h); a sample is a question and its story
//   "speech"        WAV files and transcripts: DIR/{train,test}-
//                   transcripts.tsv (speech_format.h, speech_dataset.h);
//                   samples are log-mel spectrograms with a transcript row
//
// A sample is written by Load as shape().numel() floats in CHW order:
// decoded, transformed for its split (training augmentation when
// DatasetOptions::augment is set and the split is kTrain; a deterministic
// resize/center crop otherwise) and normalised with the format's per-channel
// mean and std. Augmentation draws only from a generator seeded with the
// aug_seed argument, so the same (i, aug_seed) writes the same floats on any
// thread, in any order.
//
// Errors name the file and the reason: kNotFound (missing file), kDataLoss
// (corrupt or truncated content), kPermissionDenied, kInvalidArgument (bad
// options or index). Every method is const and thread-safe: any number of
// threads may call Load concurrently.
#ifndef POWERSWEEP_WORKLOADS_DATA_DATASET_H_
#define POWERSWEEP_WORKLOADS_DATA_DATASET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace powersweep {

enum class Split { kTrain, kTest };

// "train" or "test".
const char* SplitName(Split split);

struct SampleShape {
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
  int64_t numel() const { return channels * height * width; }
  bool operator==(const SampleShape& o) const {
    return channels == o.channels && height == o.height && width == o.width;
  }
};

class Dataset {
 public:
  virtual ~Dataset();

  // "idx", "cifar10", "image-folder", "frames", "text", "babi" or "speech".
  virtual std::string format() const = 0;
  // The directory the data set was opened from.
  virtual std::string path() const = 0;
  virtual Split split() const = 0;
  // Number of samples of the split (>= 1).
  virtual int64_t size() const = 0;
  virtual int num_classes() const = 0;
  // Width of the output layer of a model trained on this set: num_classes()
  // for labelled images; the game's action count for a frames set, whose
  // labels are transition codes (frames_dataset.h).
  virtual int model_outputs() const { return num_classes(); }
  // Shape of every sample Load writes.
  virtual SampleShape shape() const = 0;
  // Label of sample i in 0..num_classes()-1; i must be in 0..size()-1.
  virtual int label(int64_t i) const = 0;
  // Writes sample i (0 <= i < size()) to out[0..shape().numel()); see the
  // file comment. kInvalidArgument for an index out of range.
  virtual absl::Status Load(int64_t i, uint64_t aug_seed, float* out) const = 0;
  // The files backing the split (for page-cache control and residency).
  virtual const std::vector<std::string>& files() const = 0;
  // True when Load reads a file per sample (image folders); false when the
  // whole split was read into memory by OpenDataset (idx, cifar10).
  virtual bool reads_files_per_sample() const = 0;
  // Sum of the sizes of files(), in bytes.
  virtual int64_t bytes_on_disk() const = 0;
};

struct DatasetOptions {
  Split split = Split::kTrain;
  // Training augmentation (ignored for the test split and for idx).
  bool augment = true;
  // Side of the square samples Load writes; 0 = the format's default: the
  // native size for idx (28 for MNIST), 32 for cifar10, 224 for
  // image-folder. idx and cifar10 only accept 0 or their native size.
  int64_t image_size = 0;
  // text: a sample is `sample_tokens` tokens starting every `seq_len`
  // tokens (text_dataset.h); 0 = 35 and seq_len + 1. babi: seq_len words
  // per sentence and sample_tokens = (memory + 1) x seq_len
  // (babi_dataset.h). speech: seq_len is the window of spectrogram frames
  // (speech_dataset.h; 0 = 256). Ignored by the image formats.
  int64_t seq_len = 0;
  int64_t sample_tokens = 0;
};

// Opens one split of the data set in `dir`, detecting its format from the
// directory's contents (checked in this order): IDX image files, CIFAR-10
// batch files (in dir or dir/cifar-10-batches-bin), a train/ folder of
// class folders, frames files, vocab.txt with a .tokens file, a speech
// transcript manifest. kNotFound when dir does not exist or holds none of them
// (the message lists what was looked for); kFailedPrecondition for a
// generated set whose generation did not finish (dataset_generator.h);
// otherwise the reader's errors.
// idx, cifar10 and text read the whole split here; image-folder only lists
// files.
absl::StatusOr<std::unique_ptr<Dataset>> OpenDataset(
    const std::string& dir, const DatasetOptions& options);

// The format OpenDataset would use for `dir` ("idx", "cifar10",
// "image-folder", "frames", "text", "speech"), or kNotFound as above.
absl::StatusOr<std::string> DetectDatasetFormat(const std::string& dir);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_DATASET_H_
