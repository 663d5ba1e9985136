#include "workloads/data/text_dataset.h"

#include <cstring>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"

namespace powersweep {
namespace {

constexpr int64_t kDefaultSeqLen = 35;

uint64_t ReadLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

uint32_t ReadLe32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

void AppendLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

bool HasWhitespace(const std::string& s) {
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
        c == '\f') {
      return true;
    }
  }
  return false;
}

absl::Status CheckVocabulary(const std::string& path,
                             const std::vector<std::string>& vocab) {
  const char* specials[] = {kTextPad, kTextUnk, kTextEos, kTextMask};
  for (int i = 0; i < kTextSpecialTokens; ++i) {
    if (static_cast<int64_t>(vocab.size()) <= i || vocab[i] != specials[i]) {
      return absl::DataLossError(absl::StrFormat(
          "%s: line %d must be the special token %s (the first four lines "
          "are <pad>, <unk>, <eos>, <mask>)%s",
          path, i + 1, specials[i],
          static_cast<int64_t>(vocab.size()) <= i
              ? ", but the file ends before it"
              : absl::StrCat(", got '", vocab[i], "'")));
    }
  }
  if (static_cast<int64_t>(vocab.size()) > kTextMaxVocab) {
    return absl::DataLossError(absl::StrFormat(
        "%s: %d tokens, more than the %d whose ids a float holds exactly",
        path, vocab.size(), kTextMaxVocab));
  }
  absl::flat_hash_set<std::string> seen;
  seen.reserve(vocab.size());
  for (size_t i = 0; i < vocab.size(); ++i) {
    if (vocab[i].empty() || HasWhitespace(vocab[i])) {
      return absl::DataLossError(absl::StrFormat(
          "%s: line %d: a token must be non-empty and hold no whitespace, "
          "got '%s'",
          path, i + 1, vocab[i]));
    }
    if (!seen.insert(vocab[i]).second) {
      return absl::DataLossError(absl::StrFormat(
          "%s: line %d: token '%s' appears twice", path, i + 1, vocab[i]));
    }
  }
  return absl::OkStatus();
}

class TextDataset : public Dataset {
 public:
  TextDataset(std::string dir, Split split, int64_t vocab_size,
              std::vector<uint32_t> ids, int64_t seq_len, int64_t window,
              std::vector<std::string> files, int64_t bytes)
      : dir_(std::move(dir)),
        split_(split),
        vocab_size_(vocab_size),
        ids_(std::move(ids)),
        seq_len_(seq_len),
        window_(window),
        files_(std::move(files)),
        bytes_(bytes) {}

  std::string format() const override { return "text"; }
  std::string path() const override { return dir_; }
  Split split() const override { return split_; }
  int64_t size() const override {
    return (static_cast<int64_t>(ids_.size()) - window_) / seq_len_ + 1;
  }
  int num_classes() const override { return static_cast<int>(vocab_size_); }
  SampleShape shape() const override { return {1, 1, window_}; }
  int label(int64_t) const override { return 0; }
  absl::Status Load(int64_t i, uint64_t, float* out) const override {
    if (i < 0 || i >= size()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: sample %d is outside 0..%d", dir_, i, size() - 1));
    }
    const uint32_t* src = ids_.data() + i * seq_len_;
    for (int64_t t = 0; t < window_; ++t) out[t] = static_cast<float>(src[t]);
    return absl::OkStatus();
  }
  const std::vector<std::string>& files() const override { return files_; }
  bool reads_files_per_sample() const override { return false; }
  int64_t bytes_on_disk() const override { return bytes_; }

 private:
  const std::string dir_;
  const Split split_;
  const int64_t vocab_size_;
  const std::vector<uint32_t> ids_;
  const int64_t seq_len_;
  const int64_t window_;
  const std::vector<std::string> files_;
  const int64_t bytes_;
};

}  // namespace

std::string TextTokensFile(Split split) {
  return absl::StrCat(SplitName(split), ".tokens");
}

bool LooksLikeTextDataset(const std::string& dir) {
  return IsRegularFile(JoinPath(dir, kTextVocabFile)) &&
         (IsRegularFile(JoinPath(dir, TextTokensFile(Split::kTrain))) ||
          IsRegularFile(JoinPath(dir, TextTokensFile(Split::kTest))));
}

absl::StatusOr<std::vector<std::string>> ReadTextVocabulary(
    const std::string& path) {
  absl::StatusOr<std::string> text = ReadPlainFile(path);
  if (!text.ok()) return text.status();
  if (!text->empty() && text->back() != '\n') {
    return absl::DataLossError(absl::StrCat(
        path, ": the last line has no newline (truncated file?)"));
  }
  std::vector<std::string> vocab;
  size_t start = 0;
  while (start < text->size()) {
    const size_t end = text->find('\n', start);
    vocab.push_back(text->substr(start, end - start));
    start = end + 1;
  }
  absl::Status st = CheckVocabulary(path, vocab);
  if (!st.ok()) return st;
  return vocab;
}

absl::StatusOr<std::vector<uint32_t>> ReadTextTokens(const std::string& path,
                                                     int64_t vocab_size) {
  absl::StatusOr<std::string> bytes = ReadPlainFile(path);
  if (!bytes.ok()) return bytes.status();
  const int64_t size = static_cast<int64_t>(bytes->size());
  if (size < kTextHeaderBytes ||
      std::memcmp(bytes->data(), kTextTokensMagic, 8) != 0) {
    return absl::DataLossError(absl::StrFormat(
        "%s: not a token file (it must start with the 8 bytes %s and a "
        "64-bit token count; %d bytes)",
        path, kTextTokensMagic, size));
  }
  const uint64_t count = ReadLe64(bytes->data() + 8);
  const uint64_t payload = static_cast<uint64_t>(size - kTextHeaderBytes);
  if (count > payload / 4 || payload != count * 4) {
    return absl::DataLossError(absl::StrFormat(
        "%s: the header counts %d tokens (%d bytes) but %d bytes follow it "
        "(%s)",
        path, count, count * 4, payload,
        payload < count * 4 || count > payload / 4 ? "truncated file"
                                                   : "trailing bytes"));
  }
  std::vector<uint32_t> ids(count);
  const char* p = bytes->data() + kTextHeaderBytes;
  for (uint64_t i = 0; i < count; ++i) {
    ids[i] = ReadLe32(p + 4 * i);
    if (ids[i] >= vocab_size) {
      return absl::DataLossError(absl::StrFormat(
          "%s: token %d has id %d, beyond the vocabulary of %d tokens", path,
          i, ids[i], vocab_size));
    }
  }
  return ids;
}

absl::Status WriteTextVocabulary(const std::string& path,
                                 const std::vector<std::string>& vocab) {
  absl::Status st = CheckVocabulary(path, vocab);
  if (!st.ok()) return absl::InvalidArgumentError(st.message());
  std::string text;
  for (const std::string& t : vocab) absl::StrAppend(&text, t, "\n");
  return WriteWholeFile(path, text);
}

absl::Status WriteTextTokens(const std::string& path,
                             const std::vector<uint32_t>& ids) {
  std::string bytes(kTextTokensMagic, 8);
  bytes.reserve(kTextHeaderBytes + 4 * ids.size());
  AppendLe(&bytes, ids.size(), 8);
  for (uint32_t id : ids) AppendLe(&bytes, id, 4);
  return WriteWholeFile(path, bytes);
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenTextDataset(
    const std::string& dir, const DatasetOptions& options) {
  const int64_t seq_len =
      options.seq_len == 0 ? kDefaultSeqLen : options.seq_len;
  const int64_t window =
      options.sample_tokens == 0 ? seq_len + 1 : options.sample_tokens;
  if (seq_len < 1 || window < seq_len) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: sequence length %d and sample of %d tokens: need 1 <= seq_len "
        "<= sample tokens",
        dir, seq_len, window));
  }
  const std::string vocab_path = JoinPath(dir, kTextVocabFile);
  absl::StatusOr<std::vector<std::string>> vocab =
      ReadTextVocabulary(vocab_path);
  if (!vocab.ok()) return vocab.status();
  const std::string tokens_path = JoinPath(dir, TextTokensFile(options.split));
  absl::StatusOr<std::vector<uint32_t>> ids =
      ReadTextTokens(tokens_path, static_cast<int64_t>(vocab->size()));
  if (!ids.ok()) return ids.status();
  if (static_cast<int64_t>(ids->size()) < window) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %d tokens, fewer than one sample of %d (sequence length %d)",
        tokens_path, ids->size(), window, seq_len));
  }
  std::vector<std::string> files = {vocab_path, tokens_path};
  absl::StatusOr<int64_t> bytes = TotalFileSize(files);
  if (!bytes.ok()) return bytes.status();
  return std::unique_ptr<Dataset>(new TextDataset(
      dir, options.split, static_cast<int64_t>(vocab->size()), *std::move(ids),
      seq_len, window, std::move(files), *bytes));
}

}  // namespace powersweep
