// The text sets of gen-dataset --format text (dataset_generator.h): the
// WordNet glosses of Debian's wordnet-base, or a Wikipedia-shaped
// synthetic corpus. Both write vocab.txt, train.tokens and test.tokens
// (text_dataset.h).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"
#include "workloads/data/generated_set_writers.h"
#include "workloads/data/sample_rng.h"
#include "workloads/data/text_dataset.h"

namespace powersweep {
namespace {

std::vector<std::string> SpecialTokens() {
  return {kTextPad, kTextUnk, kTextEos, kTextMask};
}

absl::Status WriteSet(const GenerateOptions& o,
                      const std::vector<std::string>& vocab,
                      const std::vector<uint32_t>& train,
                      const std::vector<uint32_t>& test) {
  absl::Status st =
      WriteTextVocabulary(JoinPath(o.out_dir, kTextVocabFile), vocab);
  if (st.ok()) {
    st = WriteTextTokens(JoinPath(o.out_dir, TextTokensFile(Split::kTrain)),
                         train);
  }
  if (st.ok()) {
    st = WriteTextTokens(JoinPath(o.out_dir, TextTokensFile(Split::kTest)),
                         test);
  }
  return st;
}

// ---- WordNet glosses ----

// Lower-cased words ([a-z0-9'-] runs, an underscore read as a space) and
// punctuation marks as tokens of their own.
void Tokenize(const std::string& gloss, std::vector<std::string>* out) {
  std::string word;
  auto flush = [&] {
    if (!word.empty()) out->push_back(std::move(word));
    word.clear();
  };
  for (char raw : gloss) {
    const char c = absl::ascii_tolower(static_cast<unsigned char>(raw));
    if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '\'' ||
        c == '-') {
      word.push_back(c);
    } else {
      flush();
      if (absl::ascii_ispunct(static_cast<unsigned char>(c)) && c != '_') {
        out->push_back(std::string(1, c));
      }
    }
  }
  flush();
}

// The glosses of one data.* file: the text after "| " on every synset
// line (the license header's lines start with two spaces).
absl::Status ReadGlosses(const std::string& path,
                         std::vector<std::vector<std::string>>* glosses) {
  absl::StatusOr<std::string> text = ReadPlainFile(path);
  if (!text.ok()) return text.status();
  size_t start = 0;
  int64_t found = 0;
  while (start < text->size()) {
    size_t end = text->find('\n', start);
    if (end == std::string::npos) end = text->size();
    const std::string line = text->substr(start, end - start);
    start = end + 1;
    if (line.rfind("  ", 0) == 0) continue;
    const size_t bar = line.find("| ");
    if (bar == std::string::npos) continue;
    std::vector<std::string> tokens;
    Tokenize(line.substr(bar + 2), &tokens);
    if (tokens.empty()) continue;
    glosses->push_back(std::move(tokens));
    ++found;
  }
  if (found == 0) {
    return absl::DataLossError(absl::StrCat(
        path, ": no glosses found (expected WordNet 3.0 data lines with "
              "'| gloss')"));
  }
  return absl::OkStatus();
}

absl::Status WriteWordNetSet(const GenerateOptions& o,
                             ProgressReporter& progress) {
  std::vector<std::vector<std::string>> glosses;
  for (const char* pos : {"noun", "verb", "adj", "adv"}) {
    const std::string path = JoinPath(o.wordnet_dir, absl::StrCat("data.", pos));
    if (!IsRegularFile(path)) {
      return absl::NotFoundError(absl::StrCat(
          "--from-wordnet ", o.wordnet_dir, ": ", path,
          " not found (install Debian's wordnet-base, which puts the "
          "database in /usr/share/wordnet)"));
    }
    absl::Status st = ReadGlosses(path, &glosses);
    if (!st.ok()) return st;
  }
  // Vocabulary: the specials, then words by falling frequency (ties by
  // spelling), capped at o.vocab (0 = every word).
  absl::flat_hash_map<std::string, int64_t> counts;
  for (const auto& g : glosses) {
    for (const std::string& t : g) ++counts[t];
  }
  std::vector<std::pair<std::string, int64_t>> words(counts.begin(),
                                                     counts.end());
  std::sort(words.begin(), words.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::vector<std::string> vocab = SpecialTokens();
  for (const auto& [w, n] : words) {
    if (o.vocab > 0 && static_cast<int64_t>(vocab.size()) >= o.vocab) break;
    if (w.front() == '<') continue;  // cannot collide with the specials
    vocab.push_back(w);
  }
  absl::flat_hash_map<std::string, uint32_t> id;
  for (size_t i = 0; i < vocab.size(); ++i) id[vocab[i]] = i;
  // Every tenth gloss is test data.
  std::vector<uint32_t> train, test;
  for (size_t g = 0; g < glosses.size(); ++g) {
    std::vector<uint32_t>& out = g % 10 == 9 ? test : train;
    for (const std::string& t : glosses[g]) {
      auto it = id.find(t);
      out.push_back(it == id.end() ? kTextUnkId : it->second);
    }
    out.push_back(kTextEosId);
    progress.Report(static_cast<int64_t>(g));
  }
  return WriteSet(o, vocab, train, test);
}

// ---- Wikipedia-shaped synthetic corpus ----

// A pronounceable word for vocabulary rank r (unique: r written in base
// 60 with consonant-vowel syllables), e.g. "ba", "be", ..., "beki".
std::string SyntheticWord(int64_t r) {
  static const char* kConsonants = "bdfghklmnprstvz";  // 15
  static const char* kVowels = "aeio";                  // 4
  std::string w;
  do {
    const int s = static_cast<int>(r % 60);
    w.push_back(kConsonants[s / 4]);
    w.push_back(kVowels[s % 4]);
    r /= 60;
  } while (r > 0);
  return w;
}

// Zipf-Mandelbrot sampling over the word ranks: P(r) ~ 1 / (r + 2.7).
class ZipfSampler {
 public:
  explicit ZipfSampler(int64_t n) : cdf_(n) {
    double total = 0;
    for (int64_t r = 0; r < n; ++r) {
      total += 1.0 / (static_cast<double>(r) + 2.7);
      cdf_[r] = total;
    }
    for (double& c : cdf_) c /= total;
  }
  int64_t Draw(SampleRng& rng) const {
    const double u = rng.Uniform01();
    return std::min<int64_t>(
        std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin(),
        static_cast<int64_t>(cdf_.size()) - 1);
  }

 private:
  std::vector<double> cdf_;
};

// Ids 4.. are the punctuation and heading tokens, then the words.
constexpr uint32_t kHeading = 4;  // "="
constexpr uint32_t kPeriod = 5;   // "."
constexpr uint32_t kComma = 6;    // ","
constexpr uint32_t kFirstWord = 7;

// Articles like WikiText's: a heading line "= w w =" then 3-12 paragraphs
// of 2-8 sentences; a sentence is 8-40 Zipf-drawn words with a comma
// after about one word in twelve, ending in "." and <eos>.
void WriteArticles(int64_t tokens, uint64_t seed, const ZipfSampler& zipf,
                   std::vector<uint32_t>* out, ProgressReporter& progress,
                   int64_t progress_base) {
  SampleRng rng(seed);
  auto word = [&] { return kFirstWord + static_cast<uint32_t>(zipf.Draw(rng)); };
  while (static_cast<int64_t>(out->size()) < tokens) {
    out->push_back(kHeading);
    for (int64_t i = rng.UniformInt(1, 3); i > 0; --i) out->push_back(word());
    out->push_back(kHeading);
    out->push_back(kTextEosId);
    for (int64_t p = rng.UniformInt(3, 12); p > 0; --p) {
      for (int64_t s = rng.UniformInt(2, 8); s > 0; --s) {
        for (int64_t w = rng.UniformInt(8, 40); w > 0; --w) {
          out->push_back(word());
          if (w > 1 && rng.UniformInt(0, 11) == 0) out->push_back(kComma);
        }
        out->push_back(kPeriod);
        out->push_back(kTextEosId);
      }
      progress.Report(progress_base + static_cast<int64_t>(out->size()));
    }
  }
  out->resize(tokens);
}

absl::Status WriteWikiShapedSet(const GenerateOptions& o,
                                ProgressReporter& progress) {
  std::vector<std::string> vocab = SpecialTokens();
  vocab.insert(vocab.end(), {"=", ".", ","});
  const int64_t words = o.vocab - kFirstWord;
  for (int64_t r = 0; r < words; ++r) vocab.push_back(SyntheticWord(r));
  const ZipfSampler zipf(words);
  std::vector<uint32_t> train, test;
  train.reserve(o.train_count);
  test.reserve(o.test_count);
  WriteArticles(o.train_count, MixSeed({o.seed, 1}), zipf, &train, progress, 0);
  WriteArticles(o.test_count, MixSeed({o.seed, 2}), zipf, &test, progress,
                o.train_count);
  return WriteSet(o, vocab, train, test);
}

}  // namespace

absl::Status WriteTextSet(const GenerateOptions& options,
                          ProgressReporter& progress) {
  if (!options.wordnet_dir.empty()) return WriteWordNetSet(options, progress);
  return WriteWikiShapedSet(options, progress);
}

}  // namespace powersweep
