#include "agent/platform/twin/dataset_cost.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {
namespace {

// Start-up decode of loaded-at-start sets, per decoded byte: gunzip + IDX
// parse (assumed, as before the workload suite), and a plain read + copy of
// uncompressed CIFAR-10 records (assumed).
constexpr double kGunzipCyclesPerByte = 8;
constexpr double kRawRecordCyclesPerByte = 1;
// Per sample on the loader, per value handed to the model: copy and
// normalize of an in-memory sample (2; with PerfModel's 1,432 cycles per
// sample this keeps the calibrated 3,000 cycles of a 784-value Fashion-MNIST
// sample), and for a JPEG also resize, crop and flip (20, assumed).
constexpr double kInMemoryCyclesPerValue = 2;
constexpr double kImageTransformCyclesPerValue = 20;
// libjpeg-turbo decode per compressed byte (measured: PIL 9.4 over
// libjpeg-turbo on this machine's Xeon at 2.0 GHz decodes 500x375 and
// 800x600 quality-90 JPEGs at 61-106 cycles per byte, the low end for files
// of 115-290 kB; 60 taken).
constexpr double kJpegDecodeCyclesPerByte = 60;

// Text sets as gen-dataset writes them, measured on this machine: the
// WordNet glosses (every word kept) are 1,613,629 training and 179,256 test
// tokens over a 63,052-token vocabulary (vocab.txt 592,202 bytes); the
// WikiText-2-shaped set's vocab.txt is 225,608 bytes.
constexpr int64_t kWordNetTrainTokens = 1613629;
constexpr int64_t kWordNetTestTokens = 179256;
constexpr int kWordNetVocab = 63052;
constexpr double kWordNetVocabBytes = 592202;
constexpr double kWikiTextVocabBytes = 225608;
constexpr double kBabiTrainBytes = 94428;
constexpr double kBabiTestBytes = 94486;
constexpr double kBabiParseCyclesPerByte = 20;

DatasetCost Idx(const char* name, double train_bytes, double test_bytes) {
  DatasetCost d;
  d.name = name;
  d.format = DatasetFormat::kIdxGzip;
  d.train = {60000, train_bytes};
  d.infer = {10000, test_bytes};
  d.input = {1, 28, 10};
  d.record_bytes = 28 * 28 + 1;  // pixels + label
  d.load_cycles_per_byte = kGunzipCyclesPerByte;
  d.transform_cycles_per_value = kInMemoryCyclesPerValue;
  return d;
}

// Fashion-MNIST as the Debian package ships it (gzip IDX, sizes on this
// machine): train-images 26,421,856 + train-labels 29,491 bytes;
// t10k-images 4,422,079 + t10k-labels 5,125 bytes.
DatasetCost FashionMnist() {
  return Idx("fashion-mnist", 26421856.0 + 29491.0, 4422079.0 + 5125.0);
}

// MNIST as distributed (gzip IDX): train-images 9,912,422 + train-labels
// 28,881; t10k-images 1,648,877 + t10k-labels 4,542 bytes. (The SIGMETRICS
// table's "46MB" is the unpacked size: 60,000 x 784 + headers = 47.1 MB.)
DatasetCost Mnist() {
  return Idx("mnist", 9912422.0 + 28881.0, 1648877.0 + 4542.0);
}

// CIFAR-10 binary version: data_batch_1..5.bin (train) and test_batch.bin,
// each 10,000 records of 1 label byte + 3,072 pixel bytes = 30,730,000
// bytes (the SIGMETRICS table: 50,000 samples, 150 MB).
DatasetCost Cifar10() {
  DatasetCost d;
  d.name = "cifar10";
  d.format = DatasetFormat::kCifarBinary;
  d.train = {50000, 5 * 30730000.0};
  d.infer = {10000, 30730000.0};
  d.input = {3, 32, 10};
  d.record_bytes = 1 + 3 * 32 * 32;
  d.load_cycles_per_byte = kRawRecordCyclesPerByte;
  d.transform_cycles_per_value = kInMemoryCyclesPerValue;
  return d;
}

DatasetCost ImageFolder(const char* name, DatasetSplit train,
                        DatasetSplit infer, int classes) {
  DatasetCost d;
  d.name = name;
  d.format = DatasetFormat::kImageFolder;
  d.train = train;
  d.infer = infer;
  d.input = {3, 224, classes};
  d.transform_cycles_per_value = kImageTransformCyclesPerValue;
  d.decode_cycles_per_sample =
      train.storage_bytes / train.samples * kJpegDecodeCyclesPerByte;
  return d;
}

// GLD23k as the SIGMETRICS study used it: 23,080 training JPEGs, 2,827 MB
// (mean 122.5 kB per file), classes as gen-dataset generates the set (2,000;
// TensorFlow Federated's gld23k has 203 labels). The paper gives no
// validation split; assumed: 2,000 JPEGs (one per class) of the same mean
// size.
DatasetCost Gld23k() {
  const double mean_file = 2827e6 / 23080;
  return ImageFolder("gld23k", {23080, 2827e6}, {2000, 2000 * mean_file}, 2000);
}

// ImageNet as an edge device holds it: the ILSVRC-2012 validation images
// (50,000 JPEGs in 1,000 class folders; ILSVRC2012_img_val.tar is
// 6,744,924,160 bytes). The HiPC study trains ResNet-18 and infers with
// ResNet-50 on "a subset of ImageNet" without giving its size; assumed:
// both splits are these 50,000 images.
DatasetCost ImageNet() {
  const DatasetSplit val = {50000, 6744924160.0};
  return ImageFolder("imagenet", val, val, 1000);
}

// catch-frames: the DQN replay memory gen-dataset writes (`--format frames
// --train-count 2000 --test-count 500`, README "Data sets"): 84x84 frames,
// records of 4 bytes + 5 frames (35,284 bytes) after a 40-byte header, read
// whole and copied into floats (v / 255) per sample.
DatasetCost CatchFrames() {
  const double record = 4 + 5 * 84 * 84;
  DatasetCost d;
  d.name = "catch-frames";
  d.format = DatasetFormat::kFrames;
  d.train = {2000, 40 + 2000 * record};
  d.infer = {500, 40 + 500 * record};
  d.input = {5, 84, 3};
  d.record_bytes = record;
  d.load_cycles_per_byte = kRawRecordCyclesPerByte;
  d.transform_cycles_per_value = kInMemoryCyclesPerValue;
  return d;
}

// espeak-words: the speech set gen-dataset writes with its defaults
// (`--format speech`, 1,000 training and 200 test utterances of 1-3 WordNet
// words spoken by espeak-ng; README "Data sets"), measured on this
// machine: the training WAVs are 59,862,984 bytes (59.9 kB, 1.36 s at
// 22,050 Hz 16-bit mono, on average), the test WAVs 12,214,538; reading one
// and computing its 80-band log-mel spectrogram (log_mel.h) took 5.9 ms on
// one core of this 2.6 GHz EPYC under load, about 1.5e7 cycles, taken as
// the per-sample decode; the normalisation and padding are in-memory
// copies.
DatasetCost EspeakWords() {
  DatasetCost d;
  d.name = "espeak-words";
  d.format = DatasetFormat::kSpeech;
  d.train = {1000, 59862984};
  d.infer = {200, 12214538};
  d.input = {1, 256, 29};
  d.transform_cycles_per_value = kInMemoryCyclesPerValue;
  d.decode_cycles_per_sample = 1.5e7;
  return d;
}

// The `synthetic` data set: nothing stored, nothing decoded.
DatasetCost Synthetic() {
  DatasetCost d;
  d.name = "synthetic";
  d.format = DatasetFormat::kSynthetic;
  return d;
}

// A text set (text_dataset.h): token files of 16 header bytes + 4 bytes per
// token, plus vocab.txt; read whole and copied at start.
DatasetCost Text(const char* name, int64_t train_tokens, int64_t test_tokens,
                 int vocab, double vocab_bytes) {
  DatasetCost d;
  d.name = name;
  d.format = DatasetFormat::kText;
  d.train_tokens = train_tokens;
  d.infer_tokens = test_tokens;
  d.train = {0, 16.0 + 4.0 * train_tokens + vocab_bytes};
  d.infer = {0, 16.0 + 4.0 * test_tokens + vocab_bytes};
  d.input = {1, 0, vocab};
  d.load_cycles_per_byte = kRawRecordCyclesPerByte;
  d.transform_cycles_per_value = kInMemoryCyclesPerValue;
  return d;
}

// The WordNet 3.0 glosses as `gen-dataset --format text --from-wordnet
// /usr/share/wordnet` writes them (Debian's wordnet-base 1:3.0-37; every
// word kept): measured on this machine.
DatasetCost WordNet() {
  return Text("wordnet", kWordNetTrainTokens, kWordNetTestTokens,
              kWordNetVocab, kWordNetVocabBytes);
}

// WikiText-2's shape (Merity et al. 2016: 2,088,628 training and 245,569
// test tokens, a 33,278-token vocabulary) as `gen-dataset --format text
// --train-count 2088628 --test-count 245569 --vocab 33278` writes it.
DatasetCost WikiText() {
  return Text("wikitext", 2088628, 245569, 33278, kWikiTextVocabBytes);
}

// bAbI task 1 as `gen-dataset --format babi --train-count 1000
// --test-count 1000` writes it (bAbI's "1k" size: 1,000 training and 1,000
// test questions): 94,428 and 94,486 bytes of text (the default seed),
// measured on this machine. The reader parses the text at start (assumed
// 20 cycles per byte: splitting lines and words, a vocabulary lookup);
// memnet's sample is 51 sentences of 8 words, the vocabulary 23 tokens.
DatasetCost Babi() {
  DatasetCost d;
  d.name = "babi";
  d.format = DatasetFormat::kBabi;
  d.train = {1000, kBabiTrainBytes};
  d.infer = {1000, kBabiTestBytes};
  d.input = {1, 8, 23};
  d.record_bytes = kBabiTrainBytes / 1000;
  d.load_cycles_per_byte = kBabiParseCyclesPerByte;
  d.transform_cycles_per_value = kInMemoryCyclesPerValue;
  return d;
}

}  // namespace

const char* DatasetFormatName(DatasetFormat format) {
  switch (format) {
    case DatasetFormat::kIdxGzip:
      return "idx";
    case DatasetFormat::kCifarBinary:
      return "cifar10";
    case DatasetFormat::kImageFolder:
      return "image-folder";
    case DatasetFormat::kFrames:
      return "frames";
    case DatasetFormat::kSynthetic:
      return "synthetic";
    case DatasetFormat::kText:
      return "text";
    case DatasetFormat::kBabi:
      return "babi";
    case DatasetFormat::kSpeech:
      return "speech";
  }
  return "unknown";
}

double DatasetCost::FileBytesPerSample(bool train_split) const {
  const DatasetSplit& s = Split(train_split);
  return s.samples > 0 ? s.storage_bytes / s.samples : 0;
}

std::vector<std::string> TwinDatasetNames() {
  return {"babi",          "catch-frames", "cifar10",  "espeak-words",
          "fashion-mnist", "gld23k",       "imagenet", "mnist",
          "synthetic",     "wikitext",     "wordnet"};
}

absl::StatusOr<DatasetCost> DatasetCostFor(const std::string& dataset) {
  if (dataset == "babi") return Babi();
  if (dataset == "catch-frames") return CatchFrames();
  if (dataset == "cifar10") return Cifar10();
  if (dataset == "espeak-words") return EspeakWords();
  if (dataset == "fashion-mnist") return FashionMnist();
  if (dataset == "gld23k") return Gld23k();
  if (dataset == "imagenet") return ImageNet();
  if (dataset == "mnist") return Mnist();
  if (dataset == "synthetic") return Synthetic();
  if (dataset == "wikitext") return WikiText();
  if (dataset == "wordnet") return WordNet();
  return absl::NotFoundError(absl::StrCat(
      "dataset \"", dataset, "\" has no twin cost model (known: ",
      absl::StrJoin(TwinDatasetNames(), ", "), ")"));
}

}  // namespace powersweep
