// The text format (text_dataset.h): windows of token ids, the checks that
// name the file, and the two generators (the WordNet glosses of Debian's
// wordnet-base, which the build environment installs, and the
// Wikipedia-shaped corpus).
#include "workloads/data/text_dataset.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/dataset_generator.h"

namespace powersweep {
namespace {

using ::powersweep::testing::ReadFile;
using ::powersweep::testing::TempDir;
using ::powersweep::testing::WriteFile;
using ::testing::HasSubstr;

constexpr char kWordNet[] = "/usr/share/wordnet";

std::vector<std::string> Vocab(int words) {
  std::vector<std::string> v = {"<pad>", "<unk>", "<eos>", "<mask>"};
  for (int i = 0; i < words; ++i) v.push_back("w" + std::to_string(i));
  return v;
}

std::vector<uint32_t> Iota(uint32_t n, uint32_t mod) {
  std::vector<uint32_t> ids(n);
  for (uint32_t i = 0; i < n; ++i) ids[i] = i % mod;
  return ids;
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenText(const std::string& dir,
                                                  int64_t seq_len,
                                                  int64_t sample_tokens,
                                                  Split split = Split::kTrain) {
  DatasetOptions o;
  o.split = split;
  o.seq_len = seq_len;
  o.sample_tokens = sample_tokens;
  return OpenDataset(dir, o);
}

TEST(TextDatasetTest, SamplesAreWindowsOfTokenIdsAsFloats) {
  TempDir dir;
  ASSERT_TRUE(WriteTextVocabulary(dir.File("vocab.txt"), Vocab(96)).ok());
  ASSERT_TRUE(WriteTextTokens(dir.File("train.tokens"), Iota(100, 100)).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenText(dir.path(), 10, 11);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->format(), "text");
  EXPECT_EQ((*d)->num_classes(), 100);
  EXPECT_EQ((*d)->shape(), (SampleShape{1, 1, 11}));
  // Windows of 11 every 10 tokens: starts 0, 10, ..., 80 (89..99 is last).
  EXPECT_EQ((*d)->size(), 9);
  EXPECT_FALSE((*d)->reads_files_per_sample());
  std::vector<float> s(11);
  ASSERT_TRUE((*d)->Load(3, 0, s.data()).ok());
  for (int t = 0; t < 11; ++t) EXPECT_EQ(s[t], 30 + t);
  EXPECT_EQ((*d)->label(3), 0);
  EXPECT_FALSE((*d)->Load(9, 0, s.data()).ok());
  // mobilebert's windows: seq_len tokens, no overlap.
  d = OpenText(dir.path(), 10, 10);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->size(), 10);
}

TEST(TextDatasetTest, DetectedByOpenDataset) {
  TempDir dir;
  ASSERT_TRUE(WriteTextVocabulary(dir.File("vocab.txt"), Vocab(4)).ok());
  ASSERT_TRUE(WriteTextTokens(dir.File("test.tokens"), Iota(50, 8)).ok());
  EXPECT_EQ(*DetectDatasetFormat(dir.path()), "text");
  // Only the test split exists.
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenText(dir.path(), 4, 5);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(d.status().message(), HasSubstr("train.tokens"));
  EXPECT_TRUE(OpenText(dir.path(), 4, 5, Split::kTest).ok());
}

// The error OpenText gives for a set with this vocab.txt content.
std::string VocabError(const std::string& vocab_text) {
  TempDir dir;
  WriteFile(dir.File("vocab.txt"), vocab_text);
  EXPECT_TRUE(WriteTextTokens(dir.File("train.tokens"), Iota(20, 4)).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenText(dir.path(), 4, 5);
  EXPECT_FALSE(d.ok());
  if (d.ok()) return "";
  EXPECT_EQ(d.status().code(), absl::StatusCode::kDataLoss) << d.status();
  EXPECT_THAT(d.status().message(), HasSubstr("vocab.txt"));
  return std::string(d.status().message());
}

TEST(TextDatasetTest, BadVocabulariesAreNamedWithTheLine) {
  const std::string specials = "<pad>\n<unk>\n<eos>\n<mask>\n";
  EXPECT_THAT(VocabError("the\n<unk>\n<eos>\n<mask>\n"),
              HasSubstr("line 1 must be the special token <pad>"));
  EXPECT_THAT(VocabError("<pad>\n<unk>\n"), HasSubstr("line 3"));
  EXPECT_THAT(VocabError(specials + "a\nb\na\n"),
              HasSubstr("line 7: token 'a' appears twice"));
  EXPECT_THAT(VocabError(specials + "a\n\nb\n"), HasSubstr("line 6"));
  EXPECT_THAT(VocabError(specials + "two words\n"),
              HasSubstr("no whitespace"));
  EXPECT_THAT(VocabError(specials + "a\nb"), HasSubstr("no newline"));
}

TEST(TextDatasetTest, DamagedTokenFilesAreNamedWithTheReason) {
  TempDir dir;
  ASSERT_TRUE(WriteTextVocabulary(dir.File("vocab.txt"), Vocab(6)).ok());
  ASSERT_TRUE(WriteTextTokens(dir.File("train.tokens"), Iota(100, 10)).ok());
  const std::string good = ReadFile(dir.File("train.tokens"));
  struct Case {
    std::string bytes;
    std::string says;
  };
  std::string beyond = good;
  beyond[16 + 4 * 42] = 10;  // token 42 := id 10 of a 10-token vocabulary
  const Case cases[] = {
      {good.substr(0, good.size() - 6), "truncated file"},
      {good + "xxxx", "trailing bytes"},
      {"NOTOKENS" + good.substr(8), "not a token file"},
      {good.substr(0, 10), "not a token file"},
      {beyond, "token 42 has id 10, beyond the vocabulary of 10"},
  };
  for (const Case& c : cases) {
    WriteFile(dir.File("train.tokens"), c.bytes);
    absl::StatusOr<std::unique_ptr<Dataset>> d = OpenText(dir.path(), 4, 5);
    ASSERT_FALSE(d.ok()) << c.says;
    EXPECT_EQ(d.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(d.status().message(), HasSubstr(dir.File("train.tokens")));
    EXPECT_THAT(d.status().message(), HasSubstr(c.says));
  }
  // Fewer tokens than one sample.
  ASSERT_TRUE(WriteTextTokens(dir.File("train.tokens"), Iota(8, 10)).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenText(dir.path(), 35, 36);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(d.status().message(),
              HasSubstr("8 tokens, fewer than one sample of 36"));
}

GenerateOptions TextOptions(const std::string& out) {
  GenerateOptions o;
  o.format = "text";
  o.out_dir = out;
  o.seed = 5;
  return o;
}

TEST(TextDatasetTest, WordNetGlossesBecomeARealCorpus) {
  TempDir dir;
  GenerateOptions o = TextOptions(dir.File("wordnet"));
  o.wordnet_dir = kWordNet;
  o.vocab = 5000;
  absl::Status st = GenerateDataset(o, {});
  ASSERT_TRUE(st.ok()) << st << " (the build environment installs Debian's "
                       << "wordnet-base: infra/scripts/install-deps.sh)";
  absl::StatusOr<std::vector<std::string>> vocab =
      ReadTextVocabulary(dir.File("wordnet/vocab.txt"));
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  ASSERT_EQ(vocab->size(), 5000u);
  // The most frequent words of English glosses come first.
  const std::vector<std::string> top(vocab->begin() + 4, vocab->begin() + 40);
  for (const char* w : {"a", "of", "the", "or", "to", "and"}) {
    EXPECT_NE(std::find(top.begin(), top.end(), w), top.end()) << w;
  }
  absl::StatusOr<std::vector<uint32_t>> train =
      ReadTextTokens(dir.File("wordnet/train.tokens"), 5000);
  absl::StatusOr<std::vector<uint32_t>> test =
      ReadTextTokens(dir.File("wordnet/test.tokens"), 5000);
  ASSERT_TRUE(train.ok() && test.ok());
  // WordNet 3.0 has 117,659 synsets, about a tenth of them test glosses,
  // each ending in <eos>.
  const auto eos = [](const std::vector<uint32_t>& v) {
    return std::count(v.begin(), v.end(), kTextEosId);
  };
  EXPECT_EQ(eos(*train) + eos(*test), 117659);
  EXPECT_NEAR(eos(*test), 11766, 2);
  EXPECT_GT(train->size(), 1000000u);
  // "an organism (plant or animal) from which younger ones are obtained"
  // (synset 00006150, parent) appears in order.
  std::map<std::string, uint32_t> id;
  for (size_t i = 0; i < vocab->size(); ++i) id[(*vocab)[i]] = i;
  const std::vector<uint32_t> gloss = {id["an"], id["organism"], id["("],
                                       id["plant"], id["or"], id["animal"],
                                       id[")"]};
  EXPECT_NE(std::search(train->begin(), train->end(), gloss.begin(),
                        gloss.end()),
            train->end());
}

TEST(TextDatasetTest, WikipediaShapedCorpusIsZipfianAndSeeded) {
  TempDir dir;
  GenerateOptions o = TextOptions(dir.File("a"));
  o.train_count = 200000;
  o.test_count = 20000;
  o.vocab = 2000;
  ASSERT_TRUE(GenerateDataset(o, {}).ok());
  o.out_dir = dir.File("b");
  ASSERT_TRUE(GenerateDataset(o, {}).ok());
  EXPECT_EQ(ReadFile(dir.File("a/train.tokens")),
            ReadFile(dir.File("b/train.tokens")));
  absl::StatusOr<std::vector<uint32_t>> ids =
      ReadTextTokens(dir.File("a/train.tokens"), 2000);
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->size(), 200000u);
  std::vector<int64_t> counts(2000);
  for (uint32_t t : *ids) ++counts[t];
  // Zipf: the first word (id 7) is about twice as frequent as the third
  // ((r + 2.7) ratio 4.7 / 2.7 = 1.74), and far more than rank 1000.
  EXPECT_NEAR(static_cast<double>(counts[7]) / counts[9], 4.7 / 2.7, 0.15);
  EXPECT_GT(counts[7], 100 * counts[1007] / 4);
  // Sentences: one "." (id 5) and one <eos> per 8-40 words.
  const double sentences = counts[5];
  EXPECT_GT(ids->size() / sentences, 10);
  EXPECT_LT(ids->size() / sentences, 40);
  EXPECT_GE(counts[kTextEosId], counts[5]);
}

TEST(TextDatasetTest, GeneratorOptionsAreNamedWhenWrong) {
  TempDir dir;
  GenerateOptions o = TextOptions(dir.File("x"));
  o.vocab = 3;
  absl::Status st = GenerateDataset(o, {});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("--vocab"));
  o = TextOptions(dir.File("y"));
  o.wordnet_dir = dir.File("nowhere");
  st = GenerateDataset(o, {});
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(st.message(), HasSubstr("--from-wordnet"));
  EXPECT_THAT(st.message(), HasSubstr("wordnet-base"));
  o = TextOptions(dir.File("z"));
  o.format = "idx";
  o.vocab = 100;
  EXPECT_THAT(GenerateDataset(o, {}).message(),
              HasSubstr("--vocab: applies to --format text only"));
}

}  // namespace
}  // namespace powersweep
