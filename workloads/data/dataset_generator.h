// GenerateDataset: writes a synthetic data set in one of the real on-disk
// formats OpenDataset reads, so the same loading code runs on generated and
// real data (these machines cannot download data sets).
//
//   idx           train-images-idx3-ubyte, train-labels-idx1-ubyte,
//                 t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte (each with
//                 .gz when gzip is set): big-endian IDX headers, 8-bit grey
//   cifar10       data_batch_1.bin .. data_batch_5.bin (the training samples
//                 spread evenly over the five), test_batch.bin,
//                 batches.meta.txt: 3073-byte records (label, R, G, B planes)
//   image-folder  train/<class>/<id>.jpg and val/<class>/<id>.jpg, JPEG
//                 (libjpeg-turbo, quality jpeg_quality, 4:2:0), class folder
//                 names are 6-digit landmark-style ids ("004217"), file names
//                 16 hex digits as in GLD
//   frames        train.frames, test.frames: the replay memory of a
//                 ball-and-paddle game for dqn (frames_format.h,
//                 generated_frames.cc); --classes is not used (the game has
//                 3 actions), frames are 84x84
//   text          vocab.txt, train.tokens, test.tokens (text_dataset.h):
//                 with wordnet_dir (--from-wordnet DIR, Debian's
//                 wordnet-base installs /usr/share/wordnet) the glosses of
//                 WordNet 3.0's data.{noun,verb,adj,adv}, lower-cased and
//                 split into words and punctuation marks, <eos> after each
//                 gloss, every tenth gloss in the test split, the
//                 vocabulary the words by falling frequency capped at
//                 --vocab (0 = all; the rest become <unk>); the counts are
//                 not used. Without it, a Wikipedia-shaped corpus of
//                 --train-count and --test-count tokens: articles of a
//                 heading line ("= w w =") and 3-12 paragraphs of 2-8
//                 sentences of 8-40 words drawn from a Zipf-Mandelbrot law
//                 (P(rank r) ~ 1 / (r + 2.7)) over --vocab - 7 pronounceable
//                 words ("ba", "be", ..., "bekido"), commas, "." and <eos>
//                 ending each sentence. WikiText-2's shape: --train-count
//                 2088628 --test-count 245569 --vocab 33278.
//   babi          qa1_single-supporting-fact_train.txt and _test.txt, bAbI
//                 task files (babi_dataset.h) of --train-count and
//                 --test-count questions, 5 per story, from a simulated
//                 world of 4 people moving between 6 places
//                 (generated_babi.cc): "Where is Mary?" is answered by
//                 her latest move. bAbI's 1k shape: --train-count 1000
//                 --test-count 1000. --classes is not used.
//   speech        train/NNNNNN.wav, test/NNNNNN.wav and their
//                 {train,test}-transcripts.tsv (speech_format.h): each
//                 utterance 1 to 3 words drawn from the glosses of
//                 --from-wordnet DIR (default /usr/share/wordnet; runs of
//                 2-10 lower-case letters), spoken by Debian's espeak-ng
//                 (espeak.h; kFailedPrecondition naming the package when it
//                 is missing) into 16-bit mono 22,050 Hz WAV with the voice
//                 (en-us, en, en-gb-x-rp, en-gb-scotland), its variant
//                 (m1-m4, f1-f4), the speed (150-190 words per minute) and
//                 the pitch (35-65) drawn per utterance; an utterance that
//                 does not fit 256 frames (2.56 s, the default window of
//                 deepspeech2) or CTC's frames for its transcript is drawn
//                 again with fewer words. --classes and --vocab are not
//                 used. `threads` espeak-ng processes run at once.
//
// Every image is learnable: its class fixes two colours, a stripe angle and
// a stripe frequency; each image varies them slightly (phase, angle,
// frequency, colour) and adds uniform noise. Sample i of a split has label
// i % classes. image-folder images have the shorter side image_size and
// the longer side image_size .. 1.5 * image_size (landscape or portrait).
// The output is a function of the options only (not of the thread count):
// SynthesizeSample gives the exact pixels written for a sample (before JPEG
// compression).
//
// The output directory is created if missing. A non-empty directory is
// refused (kFailedPrecondition, naming it) unless it holds an earlier
// generated set of the same format (recognised by its .powersweep-dataset
// file) and nothing else; that set is then deleted and replaced. The marker
// records the options and says "complete: no" until every file is written
// ("complete: yes" after), so OpenDataset refuses a set whose generation
// was interrupted. Invalid
// options are kInvalidArgument naming the option by its command-line flag
// (--format, --out, --train-count, --test-count, --classes, --image-size,
// --seed, --vocab, --from-wordnet). Write failures name the file (file_util.h codes).
//
// `progress` (may be empty) is called on the calling thread with the number
// of samples written so far and the total (train_count + test_count), about
// a hundred times per run and once at the end with done == total.
// image-folder sets are encoded by `threads` threads (0 = one per core),
// the calling thread among them. GenerateDataset is thread-safe for
// distinct output directories.
#ifndef POWERSWEEP_WORKLOADS_DATA_DATASET_GENERATOR_H_
#define POWERSWEEP_WORKLOADS_DATA_DATASET_GENERATOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

struct GenerateOptions {
  std::string format;  // --format: idx | cifar10 | image-folder | frames |
                       // text | babi | speech
  std::string out_dir;         // --out
  int64_t train_count = 1000;  // --train-count, >= 1
  int64_t test_count = 200;    // --test-count, >= 1
  int classes = 10;            // --classes: 1..10 (idx, cifar10), 1..100000
  // --image-size: 0 = format default: idx 28 (4..4096), cifar10 32 (the
  // only size), image-folder 256 (16..4096, the shorter side).
  int64_t image_size = 0;
  uint64_t seed = 1;      // --seed
  bool gzip = true;       // idx: write .gz files
  int jpeg_quality = 90;  // image-folder: 1..100
  int threads = 0;        // image-folder: encoding threads, 0 = per core
  // text: the WordNet database directory (--from-wordnet; "" = the
  // Wikipedia-shaped synthetic corpus) and the vocabulary size (--vocab:
  // synthetic 0 = 33,278, else 8..2^24; WordNet 0 = every word, else a cap
  // of at least 5).
  // speech: the WordNet directory of the word list ("" = the default
  // below).
  std::string wordnet_dir;
  int64_t vocab = 0;
};

// Where Debian's wordnet-base installs the WordNet database.
inline constexpr char kDefaultWordNetDir[] = "/usr/share/wordnet";

// The name of the file marking a generated set.
inline constexpr char kGeneratedMarkerName[] = ".powersweep-dataset";

using GenerateProgress = std::function<void(int64_t done, int64_t total)>;

absl::Status GenerateDataset(const GenerateOptions& options,
                             const GenerateProgress& progress);

// The options with defaults filled in (image_size), or the
// kInvalidArgument GenerateDataset would return.
absl::StatusOr<GenerateOptions> ResolveGenerateOptions(
    const GenerateOptions& options);

// One generated sample before encoding: interleaved (HWC) 8-bit pixels.
struct SyntheticSample {
  int label = 0;
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;
};

// Sample `index` of `split` as GenerateDataset writes it; `options` must be
// resolved (ResolveGenerateOptions) and index < the split's count.
SyntheticSample SynthesizeSample(const GenerateOptions& options, Split split,
                                 int64_t index);

// image-folder: the sorted class folder names, and the path of sample
// `index` of `split` relative to out_dir (e.g. "val/004217/3f0c....jpg").
std::vector<std::string> GeneratedClassNames(const GenerateOptions& options);
std::string GeneratedImagePath(const GenerateOptions& options,
                               const std::vector<std::string>& class_names,
                               Split split, int64_t index);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_DATASET_GENERATOR_H_
