#include "workloads/data/babi_dataset.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"
#include "workloads/data/text_dataset.h"

namespace powersweep {
namespace {

// One parsed line: a statement (answer empty) or a question.
struct Line {
  int64_t line_no = 0;  // 1-based line of its file
  int64_t id = 0;
  std::vector<std::string> words;
  std::string answer;
};

// One question as a sample: word lists, answer token.
struct Question {
  std::vector<const std::vector<std::string>*> memory;  // most recent first
  const std::vector<std::string>* words = nullptr;
  std::string answer;
};

std::vector<std::string> Words(absl::string_view text) {
  std::vector<std::string> out;
  for (absl::string_view w : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    while (!w.empty() && (w.back() == '.' || w.back() == '?' ||
                          w.back() == ',')) {
      w.remove_suffix(1);
    }
    if (!w.empty()) out.push_back(absl::AsciiStrToLower(w));
  }
  return out;
}

absl::Status LineError(const std::string& path, int64_t line_no,
                       const std::string& reason) {
  return absl::DataLossError(
      absl::StrFormat("%s:%d: %s", path, line_no, reason));
}

// The lines of one bAbI file, checked as babi_dataset.h says.
absl::StatusOr<std::vector<Line>> ParseFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadPlainFile(path);
  if (!text.ok()) return text.status();
  std::vector<Line> lines;
  std::set<int64_t> statements;  // ids of the current story's statements
  int64_t line_no = 0;
  int64_t previous = 0;
  for (absl::string_view raw : absl::StrSplit(*text, '\n')) {
    ++line_no;
    raw = absl::StripTrailingAsciiWhitespace(raw);
    if (raw.empty()) continue;
    Line line;
    line.line_no = line_no;
    const size_t space = raw.find(' ');
    if (space == absl::string_view::npos ||
        !absl::SimpleAtoi(raw.substr(0, space), &line.id) || line.id < 1) {
      return LineError(path, line_no,
                       "expected '<id> <text>' with an id of 1 or more");
    }
    if (line.id != 1 && line.id != previous + 1) {
      return LineError(
          path, line_no,
          absl::StrFormat("id %d does not follow %d (a story starts at 1 and "
                          "counts up by one)",
                          line.id, previous));
    }
    if (line.id == 1) statements.clear();
    previous = line.id;
    const std::vector<absl::string_view> fields =
        absl::StrSplit(raw.substr(space + 1), '\t');
    line.words = Words(fields[0]);
    if (line.words.empty()) {
      return LineError(path, line_no, "no words in the sentence");
    }
    if (fields.size() == 1) {
      statements.insert(line.id);
    } else {
      line.answer = absl::AsciiStrToLower(
          absl::StripAsciiWhitespace(fields[1]));
      if (fields.size() != 3 || line.answer.empty()) {
        return LineError(path, line_no,
                         "a question line is '<id> <question>\\t<answer>\\t"
                         "<supporting ids>'");
      }
      for (absl::string_view s :
           absl::StrSplit(fields[2], ' ', absl::SkipEmpty())) {
        int64_t id = 0;
        if (!absl::SimpleAtoi(s, &id) || statements.count(id) == 0) {
          return LineError(
              path, line_no,
              absl::StrFormat("supporting fact '%s' is not the id of an "
                              "earlier statement of the story",
                              s));
        }
      }
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

class BabiDataset : public Dataset {
 public:
  BabiDataset(std::string dir, Split split, std::vector<std::string> files,
              int64_t bytes, int64_t words, int64_t memory, int64_t vocab,
              std::vector<uint32_t> ids, std::vector<int> labels)
      : dir_(std::move(dir)),
        split_(split),
        files_(std::move(files)),
        bytes_(bytes),
        words_(words),
        memory_(memory),
        vocab_(vocab),
        ids_(std::move(ids)),
        labels_(std::move(labels)) {}

  std::string format() const override { return "babi"; }
  std::string path() const override { return dir_; }
  Split split() const override { return split_; }
  int64_t size() const override {
    return static_cast<int64_t>(labels_.size());
  }
  int num_classes() const override { return static_cast<int>(vocab_); }
  SampleShape shape() const override {
    return {1, 1, (memory_ + 1) * words_};
  }
  int label(int64_t i) const override { return labels_[i]; }
  absl::Status Load(int64_t i, uint64_t /*aug_seed*/,
                    float* out) const override {
    if (i < 0 || i >= size()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: sample %d is outside 0..%d", dir_, i, size() - 1));
    }
    const int64_t n = (memory_ + 1) * words_;
    const uint32_t* src = ids_.data() + i * n;
    for (int64_t k = 0; k < n; ++k) out[k] = static_cast<float>(src[k]);
    return absl::OkStatus();
  }
  const std::vector<std::string>& files() const override { return files_; }
  bool reads_files_per_sample() const override { return false; }
  int64_t bytes_on_disk() const override { return bytes_; }

 private:
  std::string dir_;
  Split split_;
  std::vector<std::string> files_;
  int64_t bytes_;
  int64_t words_;
  int64_t memory_;
  int64_t vocab_;
  std::vector<uint32_t> ids_;  // size() x (memory + 1) x words
  std::vector<int> labels_;
};

}  // namespace

std::vector<std::string> BabiFiles(const std::string& dir, Split split) {
  std::vector<std::string> out;
  absl::StatusOr<std::vector<std::string>> entries = ListDirectory(dir);
  if (!entries.ok()) return out;
  const std::string suffix = absl::StrFormat("_%s.txt", SplitName(split));
  for (const std::string& name : *entries) {
    if (absl::StartsWith(name, "qa") && absl::EndsWith(name, suffix) &&
        IsRegularFile(JoinPath(dir, name))) {
      out.push_back(JoinPath(dir, name));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool LooksLikeBabiDataset(const std::string& dir) {
  return !BabiFiles(dir, Split::kTrain).empty() ||
         !BabiFiles(dir, Split::kTest).empty();
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenBabiDataset(
    const std::string& dir, const DatasetOptions& options) {
  const int64_t words =
      options.seq_len == 0 ? kBabiDefaultWords : options.seq_len;
  const int64_t sample =
      options.sample_tokens == 0 ? (kBabiDefaultMemory + 1) * words
                                 : options.sample_tokens;
  if (words < 1 || sample < 2 * words || sample % words != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %d words per sentence and samples of %d tokens: a bAbI sample "
        "is (memory + 1) x words tokens with a memory of 1 or more",
        dir, words, sample));
  }
  const int64_t memory = sample / words - 1;
  // Both splits make the vocabulary; the asked split makes the samples.
  std::map<std::string, std::vector<Line>> parsed;
  std::set<std::string> tokens;
  std::vector<std::string> split_files;
  for (Split s : {Split::kTrain, Split::kTest}) {
    for (const std::string& path : BabiFiles(dir, s)) {
      absl::StatusOr<std::vector<Line>> lines = ParseFile(path);
      if (!lines.ok()) return lines.status();
      for (const Line& l : *lines) {
        tokens.insert(l.words.begin(), l.words.end());
        if (!l.answer.empty()) tokens.insert(l.answer);
      }
      if (s == options.split) split_files.push_back(path);
      parsed[path] = *std::move(lines);
    }
  }
  if (split_files.empty()) {
    return absl::NotFoundError(absl::StrFormat(
        "%s: no bAbI %s file (qa<N>_<name>_%s.txt)", dir,
        SplitName(options.split), SplitName(options.split)));
  }
  std::vector<std::string> vocab = {kTextPad, kTextUnk, kTextEos, kTextMask};
  for (const std::string& t : tokens) {
    if (t != kTextPad && t != kTextUnk && t != kTextEos && t != kTextMask) {
      vocab.push_back(t);
    }
  }
  std::map<std::string, uint32_t> id;
  for (size_t i = 0; i < vocab.size(); ++i) id[vocab[i]] = i;
  std::vector<uint32_t> ids;
  std::vector<int> labels;
  const int64_t n = (memory + 1) * words;
  for (const std::string& path : split_files) {
    std::vector<const Line*> story;  // statements so far, oldest first
    for (const Line& l : parsed[path]) {
      if (l.id == 1) story.clear();
      if (static_cast<int64_t>(l.words.size()) > words) {
        return absl::FailedPreconditionError(absl::StrFormat(
            "%s:%d: %d words, more than the %d of a sentence (--seq-len)",
            path, l.line_no, l.words.size(), words));
      }
      if (l.answer.empty()) {
        story.push_back(&l);
        continue;
      }
      const size_t base = ids.size();
      ids.resize(base + n, 0);
      auto put = [&](int64_t slot, const std::vector<std::string>& w) {
        for (size_t k = 0; k < w.size(); ++k) {
          ids[base + slot * words + k] = id[w[k]];
        }
      };
      const int64_t kept =
          std::min<int64_t>(memory, static_cast<int64_t>(story.size()));
      for (int64_t slot = 0; slot < kept; ++slot) {
        put(slot, story[story.size() - 1 - slot]->words);
      }
      put(memory, l.words);
      labels.push_back(static_cast<int>(id[l.answer]));
    }
  }
  if (labels.empty()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: no question in the %s split (a question line is '<id> "
        "<question>\\t<answer>\\t<supporting ids>')",
        absl::StrJoin(split_files, ", "), SplitName(options.split)));
  }
  absl::StatusOr<int64_t> bytes = TotalFileSize(split_files);
  if (!bytes.ok()) return bytes.status();
  return std::unique_ptr<Dataset>(new BabiDataset(
      dir, options.split, std::move(split_files), *bytes, words, memory,
      static_cast<int64_t>(vocab.size()), std::move(ids), std::move(labels)));
}

}  // namespace powersweep
