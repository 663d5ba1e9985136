#include "workloads/data/dataset_generator.h"

#include <filesystem>
#include <set>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"
#include "workloads/data/generated_set_writers.h"

namespace powersweep {
namespace {

constexpr int64_t kMaxCount = int64_t{1} << 31;  // IDX counts are 32-bit

absl::Status Invalid(const std::string& flag, const std::string& reason) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": ", reason));
}

std::string MarkerText(const GenerateOptions& o, bool complete) {
  const std::string text =
      o.format == "text"
          ? absl::StrFormat("vocab: %d\nfrom_wordnet: %s\n", o.vocab,
                            o.wordnet_dir.empty() ? "no" : o.wordnet_dir)
      : o.format == "speech"
          ? absl::StrFormat(
                "from_wordnet: %s\nspeech: espeak-ng, voices en-us en "
                "en-gb-x-rp en-gb-scotland, variants m1-m4 f1-f4, 150-190 "
                "words/min, pitch 35-65\n",
                o.wordnet_dir)
          : "";
  return absl::StrFormat(
      "format: %s\ntrain_count: %d\ntest_count: %d\nclasses: %d\n"
      "image_size: %d\nseed: %d\ngzip: %s\njpeg_quality: %d\n%scomplete: "
      "%s\n",
      o.format, o.train_count, o.test_count, o.classes, o.image_size, o.seed,
      o.gzip ? "yes" : "no", o.jpeg_quality, text, complete ? "yes" : "no");
}

// The format named in a marker file's first line, or "".
std::string MarkerFormat(const std::string& marker_path) {
  absl::StatusOr<std::string> text = ReadPlainFile(marker_path);
  if (!text.ok() || !absl::StartsWith(*text, "format: ")) return "";
  std::string rest = text->substr(8);
  return rest.substr(0, rest.find('\n'));
}

// Makes out_dir an empty (but for the marker) directory, or explains why not.
absl::Status PrepareOutputDirectory(const GenerateOptions& o) {
  absl::Status st = MakeDirectories(o.out_dir);
  if (!st.ok()) return st;
  absl::StatusOr<std::vector<std::string>> entries = ListDirectory(o.out_dir);
  if (!entries.ok()) return entries.status();
  if (entries->empty()) return absl::OkStatus();
  const std::string marker = JoinPath(o.out_dir, kGeneratedMarkerName);
  if (!IsRegularFile(marker)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--out ", o.out_dir, ": the directory is not empty and holds no ",
        kGeneratedMarkerName,
        " file, so it is not an earlier generated set; choose an empty or "
        "new directory"));
  }
  const std::string previous = MarkerFormat(marker);
  if (previous != o.format) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "--out %s: holds a generated %s set; refusing to replace it with a "
        "%s set (choose another directory or delete it)",
        o.out_dir, previous.empty() ? "(unreadable)" : previous, o.format));
  }
  const std::vector<std::string> known = GeneratedEntries(o.format);
  const std::set<std::string> ours(known.begin(), known.end());
  for (const std::string& name : *entries) {
    if (name != kGeneratedMarkerName && ours.count(name) == 0) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "--out %s: holds a generated %s set but also '%s', which the "
          "generator does not write; refusing to replace it",
          o.out_dir, o.format, name));
    }
  }
  for (const std::string& name : *entries) {
    std::error_code ec;
    std::filesystem::remove_all(JoinPath(o.out_dir, name), ec);
    if (ec) {
      return absl::InternalError(absl::StrCat(
          JoinPath(o.out_dir, name), ": cannot delete: ", ec.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GenerateOptions> ResolveGenerateOptions(
    const GenerateOptions& options) {
  GenerateOptions o = options;
  const bool idx = o.format == "idx";
  const bool cifar = o.format == "cifar10";
  const bool folder = o.format == "image-folder";
  const bool frames = o.format == "frames";
  const bool text = o.format == "text";
  const bool babi = o.format == "babi";
  const bool speech = o.format == "speech";
  if (!idx && !cifar && !folder && !frames && !text && !babi && !speech) {
    return Invalid("--format", absl::StrCat("'", o.format,
                                            "' is not one of idx, cifar10, "
                                            "image-folder, frames, text, "
                                            "babi, speech"));
  }
  if (!text && o.vocab != 0) {
    return Invalid("--vocab", "applies to --format text only");
  }
  if (!text && !speech && !o.wordnet_dir.empty()) {
    return Invalid("--from-wordnet", "applies to --format text and speech only");
  }
  if (o.out_dir.empty())
    return Invalid("--out", "an output directory is required");
  if (o.train_count < 1 || o.train_count > kMaxCount) {
    return Invalid("--train-count", absl::StrFormat("%d is outside 1..%d",
                                                    o.train_count, kMaxCount));
  }
  if (o.test_count < 1 || o.test_count > kMaxCount) {
    return Invalid("--test-count", absl::StrFormat("%d is outside 1..%d",
                                                   o.test_count, kMaxCount));
  }
  if (babi) {
    if (o.image_size != 0) {
      return Invalid("--image-size", "a bAbI set has no images");
    }
    return o;
  }
  if (speech) {
    if (o.image_size != 0) {
      return Invalid("--image-size", "a speech set has no images");
    }
    if (o.threads < 0) {
      return Invalid("threads", absl::StrFormat("%d is negative", o.threads));
    }
    if (o.wordnet_dir.empty()) o.wordnet_dir = kDefaultWordNetDir;
    return o;
  }
  if (text) {
    if (o.image_size != 0) {
      return Invalid("--image-size", "a text set has no images");
    }
    if (o.wordnet_dir.empty()) {
      if (o.vocab == 0) o.vocab = 33278;
      if (o.vocab < 8 || o.vocab > (int64_t{1} << 24)) {
        return Invalid("--vocab",
                       absl::StrFormat("%d is outside 8..%d (the 7 special and "
                                       "punctuation tokens and a word at "
                                       "least; ids exact in a float)",
                                       o.vocab, int64_t{1} << 24));
      }
    } else if (o.vocab != 0 && (o.vocab < 5 || o.vocab > (int64_t{1} << 24))) {
      return Invalid("--vocab",
                     absl::StrFormat("%d is outside 5..%d (0 = every word)",
                                     o.vocab, int64_t{1} << 24));
    }
    return o;
  }
  const int max_classes = folder ? 100000 : 10;
  if (o.classes < 1 || o.classes > max_classes) {
    return Invalid("--classes",
                   absl::StrFormat("%d is outside 1..%d for %s data sets",
                                   o.classes, max_classes, o.format));
  }
  if (folder && o.train_count < o.classes) {
    return Invalid("--train-count",
                   absl::StrFormat("%d is fewer than the %d classes (every "
                                   "class needs a training image)",
                                   o.train_count, o.classes));
  }
  if (frames) {
    // The game's own screen; the action count is the game's (classes is
    // not used).
    if (o.image_size != 0 && o.image_size != 84) {
      return Invalid("--image-size",
                     absl::StrFormat("%d: frames sets are 84x84 (the DQN's "
                                     "screen)",
                                     o.image_size));
    }
    o.image_size = 84;
  } else if (cifar) {
    if (o.image_size != 0 && o.image_size != 32) {
      return Invalid(
          "--image-size",
          absl::StrFormat("%d: CIFAR-10 images are 32x32", o.image_size));
    }
    o.image_size = 32;
  } else {
    const int64_t lo = idx ? 4 : 16;
    if (o.image_size == 0) o.image_size = idx ? 28 : 256;
    if (o.image_size < lo || o.image_size > 4096) {
      return Invalid("--image-size",
                     absl::StrFormat("%d is outside %d..4096 for %s",
                                     o.image_size, lo, o.format));
    }
  }
  if (o.jpeg_quality < 1 || o.jpeg_quality > 100) {
    return Invalid("jpeg quality",
                   absl::StrFormat("%d is outside 1..100", o.jpeg_quality));
  }
  if (o.threads < 0) {
    return Invalid("threads", absl::StrFormat("%d is negative", o.threads));
  }
  return o;
}

absl::Status GenerateDataset(const GenerateOptions& options,
                             const GenerateProgress& progress) {
  absl::StatusOr<GenerateOptions> o = ResolveGenerateOptions(options);
  if (!o.ok()) return o.status();
  absl::Status st = PrepareOutputDirectory(*o);
  if (!st.ok()) return st;
  const std::string marker = JoinPath(o->out_dir, kGeneratedMarkerName);
  st = WriteWholeFile(marker, MarkerText(*o, false));
  if (!st.ok()) return st;
  ProgressReporter reporter(progress, o->train_count + o->test_count);
  if (o->format == "idx") {
    st = WriteIdxSet(*o, reporter);
  } else if (o->format == "cifar10") {
    st = WriteCifar10Set(*o, reporter);
  } else if (o->format == "frames") {
    st = WriteFramesSet(*o, reporter);
  } else if (o->format == "text") {
    st = WriteTextSet(*o, reporter);
  } else if (o->format == "babi") {
    st = WriteBabiSet(*o, reporter);
  } else if (o->format == "speech") {
    st = WriteSpeechSet(*o, reporter);
  } else {
    st = WriteImageFolderSet(*o, reporter);
  }
  if (!st.ok()) return st;
  st = WriteWholeFile(marker, MarkerText(*o, true));
  if (!st.ok()) return st;
  reporter.Finish();
  return absl::OkStatus();
}

}  // namespace powersweep
