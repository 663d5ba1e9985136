#include "workloads/data/dataset.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "workloads/data/babi_dataset.h"
#include "workloads/data/cifar10_dataset.h"
#include "workloads/data/dataset_generator.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"
#include "workloads/data/frames_dataset.h"
#include "workloads/data/idx_dataset.h"
#include "workloads/data/image_folder_dataset.h"
#include "workloads/data/speech_dataset.h"
#include "workloads/data/text_dataset.h"

namespace powersweep {

Dataset::~Dataset() = default;

const char* SplitName(Split split) {
  return split == Split::kTrain ? "train" : "test";
}

absl::StatusOr<std::string> DetectDatasetFormat(const std::string& dir) {
  if (!IsDirectory(dir)) {
    return absl::NotFoundError(
        absl::StrCat(dir, ": data set directory not found"));
  }
  if (LooksLikeIdxDataset(dir)) return std::string("idx");
  if (!FindCifar10Directory(dir).empty()) return std::string("cifar10");
  // Before image folders: a speech set keeps its WAVs under train/ too.
  if (LooksLikeSpeechDataset(dir)) return std::string("speech");
  if (LooksLikeImageFolder(dir)) return std::string("image-folder");
  if (LooksLikeFramesDataset(dir)) return std::string("frames");
  if (LooksLikeTextDataset(dir)) return std::string("text");
  if (LooksLikeBabiDataset(dir)) return std::string("babi");
  return absl::NotFoundError(absl::StrCat(
      dir,
      ": not a recognised data set; looked for IDX files "
      "(train-images-idx3-ubyte or t10k-images-idx3-ubyte, optionally .gz), "
      "CIFAR-10 batches "
      "(data_batch_1.bin or test_batch.bin, also under "
      "cifar-10-batches-bin/), an image folder (train/<class>/*.jpg), "
      "frames files (train.frames or test.frames), a text set (vocab.txt "
      "with train.tokens or test.tokens), bAbI task files "
      "(qa<N>_<name>_train.txt or _test.txt) and a speech set "
      "(train-transcripts.tsv or test-transcripts.tsv)"));
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenDataset(
    const std::string& dir, const DatasetOptions& options) {
  absl::StatusOr<std::string> format = DetectDatasetFormat(dir);
  if (!format.ok()) return format.status();
  const std::string marker = JoinPath(dir, kGeneratedMarkerName);
  if (IsRegularFile(marker)) {
    absl::StatusOr<std::string> text = ReadPlainFile(marker);
    if (text.ok() && absl::StrContains(*text, "complete: no")) {
      return absl::FailedPreconditionError(
          absl::StrCat(marker,
                       ": the generation of this data set did not finish; "
                       "generate it again"));
    }
  }
  if (*format == "idx") return OpenIdxDataset(dir, options);
  if (*format == "cifar10") return OpenCifar10Dataset(dir, options);
  if (*format == "frames") return OpenFramesDataset(dir, options);
  if (*format == "text") return OpenTextDataset(dir, options);
  if (*format == "babi") return OpenBabiDataset(dir, options);
  if (*format == "speech") return OpenSpeechDataset(dir, options);
  return OpenImageFolderDataset(dir, options);
}

}  // namespace powersweep
