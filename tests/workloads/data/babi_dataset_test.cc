// The bAbI format (babi_dataset.h): a question's story in memnet's memory
// slots, the checks that name the file and line, and gen-dataset --format
// babi, whose answers follow from the stories.
#include "workloads/data/babi_dataset.h"

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

using ::powersweep::testing::TempDir;
using ::powersweep::testing::WriteFile;
using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<Dataset>> OpenBabi(const std::string& dir,
                                                  int64_t words,
                                                  int64_t memory,
                                                  Split split = Split::kTrain) {
  DatasetOptions o;
  o.split = split;
  o.seq_len = words;
  o.sample_tokens = (memory + 1) * words;
  return OpenDataset(dir, o);
}

constexpr char kStory[] =
    "1 Mary moved to the bathroom.\n"
    "2 John went to the hallway.\n"
    "3 Where is Mary? \tbathroom\t1\n"
    "4 Mary went back to the kitchen.\n"
    "5 Where is Mary? \tkitchen\t4\n"
    "1 John journeyed to the garden.\n"
    "2 Where is John? \tgarden\t1\n";

TEST(BabiDatasetTest, AQuestionCarriesItsStoryMostRecentFirst) {
  TempDir dir;
  WriteFile(dir.File("qa1_single-supporting-fact_train.txt"), kStory);
  WriteFile(dir.File("qa1_single-supporting-fact_test.txt"),
            "1 Sandra travelled to the office.\n"
            "2 Where is Sandra? \toffice\t1\n");
  EXPECT_EQ(*DetectDatasetFormat(dir.path()), "babi");
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenBabi(dir.path(), 6, 3);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->format(), "babi");
  EXPECT_EQ((*d)->size(), 3);
  EXPECT_EQ((*d)->shape(), (SampleShape{1, 1, 24}));
  // The vocabulary of both splits, sorted after the 4 special tokens.
  const std::vector<std::string> words = {
      "back",   "bathroom", "garden", "hallway", "is",        "john",
      "journeyed", "kitchen", "mary", "moved",   "office",    "sandra",
      "the",    "to",       "travelled", "went", "where"};
  EXPECT_EQ((*d)->num_classes(), 4 + static_cast<int>(words.size()));
  std::map<std::string, float> id;
  for (size_t i = 0; i < words.size(); ++i) id[words[i]] = 4 + i;
  auto sentence = [&](std::vector<std::string> w) {
    std::vector<float> out(6, 0);
    for (size_t i = 0; i < w.size(); ++i) out[i] = id[w[i]];
    return out;
  };
  std::vector<float> s(24);
  ASSERT_TRUE((*d)->Load(1, 0, s.data()).ok());
  auto slot = [&](int k) {
    return std::vector<float>(s.begin() + 6 * k, s.begin() + 6 * k + 6);
  };
  // Question 2 ("Where is Mary?" after line 4): memory = lines 4, 2, 1
  // (most recent first, the question of line 3 left out), then the
  // question.
  EXPECT_EQ(slot(0), sentence({"mary", "went", "back", "to", "the",
                               "kitchen"}));
  EXPECT_EQ(slot(1), sentence({"john", "went", "to", "the", "hallway"}));
  EXPECT_EQ(slot(2), sentence({"mary", "moved", "to", "the", "bathroom"}));
  EXPECT_EQ(slot(3), sentence({"where", "is", "mary"}));
  EXPECT_EQ((*d)->label(1), id["kitchen"]);
  // A new story (id 1) starts with an empty memory.
  ASSERT_TRUE((*d)->Load(2, 0, s.data()).ok());
  EXPECT_EQ(slot(0), sentence({"john", "journeyed", "to", "the", "garden"}));
  EXPECT_EQ(slot(1), sentence({}));
  EXPECT_EQ((*d)->label(2), id["garden"]);
  // A memory of 1 keeps the latest statement only.
  d = OpenBabi(dir.path(), 6, 1);
  ASSERT_TRUE(d.ok());
  std::vector<float> small(12);
  ASSERT_TRUE((*d)->Load(1, 0, small.data()).ok());
  EXPECT_EQ(std::vector<float>(small.begin(), small.begin() + 6),
            sentence({"mary", "went", "back", "to", "the", "kitchen"}));
  // The test split has the same ids.
  d = OpenBabi(dir.path(), 6, 3, Split::kTest);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->size(), 1);
  EXPECT_EQ((*d)->label(0), id["office"]);
  EXPECT_FALSE((*d)->Load(1, 0, s.data()).ok());
}

TEST(BabiDatasetTest, BadFilesNameTheFileAndLine) {
  struct Case {
    std::string text;
    absl::StatusCode code;
    std::string message;
  };
  const Case cases[] = {
      {"1 Mary moved to the bathroom.\n3 Where is Mary? \tbathroom\t1\n",
       absl::StatusCode::kDataLoss, ":2: id 3 does not follow 1"},
      {"Mary moved to the bathroom.\n", absl::StatusCode::kDataLoss,
       ":1: expected '<id> <text>'"},
      {"1 Mary moved to the bathroom.\n2 Where is Mary? \tbathroom\t2\n",
       absl::StatusCode::kDataLoss,
       ":2: supporting fact '2' is not the id of an earlier statement"},
      {"1 Mary moved to the bathroom.\n2 Where is Mary? \tbathroom\n",
       absl::StatusCode::kDataLoss, ":2: a question line is"},
      {"1 Mary moved to the bathroom and then to the garden.\n"
       "2 Where is Mary? \tgarden\t1\n",
       absl::StatusCode::kFailedPrecondition,
       ":1: 10 words, more than the 6 of a sentence (--seq-len)"},
      {"1 Mary moved to the bathroom.\n", absl::StatusCode::kFailedPrecondition,
       ": no question in the train split"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    WriteFile(dir.File("qa1_x_train.txt"), c.text);
    absl::StatusOr<std::unique_ptr<Dataset>> d = OpenBabi(dir.path(), 6, 50);
    ASSERT_FALSE(d.ok()) << c.text;
    EXPECT_EQ(d.status().code(), c.code) << d.status();
    const std::string message(d.status().message());
    EXPECT_THAT(message, HasSubstr(c.message));
    EXPECT_THAT(message, HasSubstr("qa1_x_train.txt"));
  }
  TempDir dir;
  WriteFile(dir.File("qa1_x_test.txt"), kStory);
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenBabi(dir.path(), 6, 50);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(d.status().message()),
              HasSubstr("no bAbI train file"));
  d = OpenBabi(dir.path(), 6, 0, Split::kTest);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BabiDatasetTest, GeneratedAnswersFollowFromTheStory) {
  TempDir dir;
  GenerateOptions g;
  g.format = "babi";
  g.out_dir = dir.File("babi");
  g.train_count = 203;
  g.test_count = 20;
  g.seed = 5;
  ASSERT_TRUE(GenerateDataset(g, {}).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenBabi(g.out_dir, 8, 50);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->size(), 203);
  // 19 words and the 4 special tokens: memnet's default vocabulary.
  EXPECT_EQ((*d)->num_classes(), 23);
  // Sorted words: back bathroom bedroom daniel garden hallway is john
  // journeyed kitchen mary moved office sandra the to travelled went where.
  const std::vector<float> places = {5, 6, 8, 9, 13, 16};
  const std::vector<float> people = {7, 11, 14, 17};
  std::vector<float> s(51 * 8);
  std::map<int, int> answers;
  for (int64_t i = 0; i < (*d)->size(); ++i) {
    ASSERT_TRUE((*d)->Load(i, 0, s.data()).ok());
    const float who = s[50 * 8 + 2];  // "where is <who>"
    ASSERT_EQ(s[50 * 8], 22);         // "where"
    ASSERT_NE(std::find(people.begin(), people.end(), who), people.end());
    // The latest statement about `who` ends in the answer's place.
    int slot = 0;
    while (slot < 50 && s[slot * 8] != who) ++slot;
    ASSERT_LT(slot, 50) << "sample " << i << ": nobody moved";
    int last = 7;
    while (s[slot * 8 + last] == 0) --last;
    EXPECT_EQ(s[slot * 8 + last], (*d)->label(i)) << "sample " << i;
    EXPECT_NE(std::find(places.begin(), places.end(), (*d)->label(i)),
              places.end());
    ++answers[(*d)->label(i)];
  }
  EXPECT_EQ(answers.size(), 6u);  // every place is an answer
  d = OpenBabi(g.out_dir, 8, 50, Split::kTest);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->size(), 20);
  // A second generation into the same directory replaces the set.
  g.train_count = 5;
  ASSERT_TRUE(GenerateDataset(g, {}).ok());
  d = OpenBabi(g.out_dir, 8, 50);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->size(), 5);
  // Options that do not apply are refused, naming the flag.
  g.vocab = 50;
  absl::Status st = GenerateDataset(g, {});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("--vocab"));
}

}  // namespace
}  // namespace powersweep
