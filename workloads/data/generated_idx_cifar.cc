// Writers of generated IDX and CIFAR-10 sets (generated_set_writers.h).
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "workloads/data/cifar10_dataset.h"
#include "workloads/data/file_util.h"
#include "workloads/data/generated_set_writers.h"
#include "workloads/data/idx_reader.h"

namespace powersweep {
namespace {

// A file written sequentially, gzipped or plain.
class ByteSink {
 public:
  static absl::StatusOr<std::unique_ptr<ByteSink>> Open(const std::string& path,
                                                        bool gzip) {
    std::unique_ptr<ByteSink> sink(new ByteSink(path));
    errno = 0;
    if (gzip) {
      sink->gz_ = gzopen(path.c_str(), "wb6");
    } else {
      sink->file_ = fopen(path.c_str(), "wb");
    }
    if (sink->gz_ == nullptr && sink->file_ == nullptr) {
      return absl::PermissionDeniedError(absl::StrCat(
          path,
          ": cannot create: ", errno != 0 ? strerror(errno) : "no memory"));
    }
    return sink;
  }
  ~ByteSink() {
    if (gz_ != nullptr) gzclose(gz_);
    if (file_ != nullptr) fclose(file_);
  }

  absl::Status Write(const void* data, size_t size) {
    if (size == 0) return absl::OkStatus();
    bool ok = gz_ != nullptr
                  ? gzwrite(gz_, data, static_cast<unsigned>(size)) ==
                        static_cast<int>(size)
                  : fwrite(data, 1, size, file_) == size;
    if (!ok) return Failed();
    return absl::OkStatus();
  }
  absl::Status Write(const std::string& bytes) {
    return Write(bytes.data(), bytes.size());
  }

  absl::Status Close() {
    int rc = gz_ != nullptr ? gzclose(gz_) : fclose(file_);
    gz_ = nullptr;
    file_ = nullptr;
    if (rc != 0) return Failed();
    return absl::OkStatus();
  }

 private:
  explicit ByteSink(std::string path) : path_(std::move(path)) {}
  absl::Status Failed() const {
    return absl::InternalError(
        absl::StrCat(path_, ": write failed: ", strerror(errno)));
  }

  const std::string path_;
  gzFile gz_ = nullptr;
  FILE* file_ = nullptr;
};

std::string BigEndianHeader(uint32_t magic,
                            std::initializer_list<uint32_t> dims) {
  std::string out;
  auto put = [&out](uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      out.push_back(static_cast<char>((v >> shift) & 0xff));
    }
  };
  put(magic);
  for (uint32_t d : dims) put(d);
  return out;
}

absl::Status WriteIdxSplit(const GenerateOptions& o, Split split,
                           int64_t first_done, ProgressReporter& progress) {
  const int64_t count = split == Split::kTrain ? o.train_count : o.test_count;
  const auto side = static_cast<uint32_t>(o.image_size);
  const std::string suffix = o.gzip ? ".gz" : "";
  const std::string prefix = IdxSplitPrefix(split);
  const std::string images_path =
      JoinPath(o.out_dir, absl::StrCat(prefix, "-images-idx3-ubyte", suffix));
  const std::string labels_path =
      JoinPath(o.out_dir, absl::StrCat(prefix, "-labels-idx1-ubyte", suffix));
  absl::StatusOr<std::unique_ptr<ByteSink>> images =
      ByteSink::Open(images_path, o.gzip);
  if (!images.ok()) return images.status();
  absl::Status st = (*images)->Write(BigEndianHeader(
      kIdxImagesMagic, {static_cast<uint32_t>(count), side, side}));
  std::string labels =
      BigEndianHeader(kIdxLabelsMagic, {static_cast<uint32_t>(count)});
  for (int64_t i = 0; st.ok() && i < count; ++i) {
    SyntheticSample s = SynthesizeSample(o, split, i);
    st = (*images)->Write(s.pixels.data(), s.pixels.size());
    labels.push_back(static_cast<char>(s.label));
    progress.Report(first_done + i + 1);
  }
  if (st.ok()) st = (*images)->Close();
  if (!st.ok()) return st;
  absl::StatusOr<std::unique_ptr<ByteSink>> label_sink =
      ByteSink::Open(labels_path, o.gzip);
  if (!label_sink.ok()) return label_sink.status();
  st = (*label_sink)->Write(labels);
  if (st.ok()) st = (*label_sink)->Close();
  return st;
}

// Appends the CIFAR-10 record of an interleaved 32x32 RGB sample.
void AppendCifarRecord(const SyntheticSample& s, std::string& out) {
  out.push_back(static_cast<char>(s.label));
  const int plane = kCifarSide * kCifarSide;
  for (int c = 0; c < 3; ++c) {
    for (int p = 0; p < plane; ++p) {
      out.push_back(static_cast<char>(s.pixels[p * 3 + c]));
    }
  }
}

constexpr const char* kCifarClassNames[10] = {
    "airplane", "automobile", "bird",  "cat",  "deer",
    "dog",      "frog",       "horse", "ship", "truck"};

}  // namespace

std::vector<std::string> GeneratedEntries(const std::string& format) {
  std::vector<std::string> names;
  if (format == "idx") {
    for (const char* prefix : {"train", "t10k"}) {
      for (const char* kind : {"-images-idx3-ubyte", "-labels-idx1-ubyte"}) {
        names.push_back(absl::StrCat(prefix, kind));
        names.push_back(absl::StrCat(prefix, kind, ".gz"));
      }
    }
  } else if (format == "frames") {
    names = {"train.frames", "test.frames"};
  } else if (format == "cifar10") {
    names = Cifar10BatchNames(Split::kTrain);
    names.push_back("test_batch.bin");
    names.push_back("batches.meta.txt");
  } else if (format == "image-folder") {
    names = {"train", "val"};
  } else if (format == "text") {
    names = {"vocab.txt", "train.tokens", "test.tokens"};
  } else if (format == "babi") {
    names = BabiGeneratedEntries();
  } else if (format == "speech") {
    names = {"train", "test", "train-transcripts.tsv", "test-transcripts.tsv"};
  }
  return names;
}

absl::Status WriteIdxSet(const GenerateOptions& options,
                         ProgressReporter& progress) {
  absl::Status st = WriteIdxSplit(options, Split::kTrain, 0, progress);
  if (!st.ok()) return st;
  return WriteIdxSplit(options, Split::kTest, options.train_count, progress);
}

absl::Status WriteCifar10Set(const GenerateOptions& options,
                             ProgressReporter& progress) {
  std::string meta;
  for (int c = 0; c < 10; ++c)
    absl::StrAppend(&meta, kCifarClassNames[c], "\n");
  absl::Status st =
      WriteWholeFile(JoinPath(options.out_dir, "batches.meta.txt"), meta);
  if (!st.ok()) return st;
  int64_t done = 0;
  auto write_batch = [&](const std::string& name, Split split, int64_t begin,
                         int64_t end) -> absl::Status {
    const std::string path = JoinPath(options.out_dir, name);
    absl::StatusOr<std::unique_ptr<ByteSink>> sink =
        ByteSink::Open(path, false);
    if (!sink.ok()) return sink.status();
    std::string buffer;
    for (int64_t i = begin; i < end; ++i) {
      AppendCifarRecord(SynthesizeSample(options, split, i), buffer);
      progress.Report(++done);
      if (buffer.size() >= (1u << 20) || i + 1 == end) {
        absl::Status w = (*sink)->Write(buffer);
        if (!w.ok()) return w;
        buffer.clear();
      }
    }
    return (*sink)->Close();
  };
  const std::vector<std::string> names = Cifar10BatchNames(Split::kTrain);
  const int64_t n = options.train_count;
  const auto batches = static_cast<int64_t>(names.size());
  for (int64_t b = 0; b < batches; ++b) {
    st = write_batch(names[b], Split::kTrain, b * n / batches,
                     (b + 1) * n / batches);
    if (!st.ok()) return st;
  }
  return write_batch("test_batch.bin", Split::kTest, 0, options.test_count);
}

}  // namespace powersweep
