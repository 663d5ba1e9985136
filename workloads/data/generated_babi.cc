// The bAbI set of gen-dataset --format babi (dataset_generator.h): task
// 1's shape ("single supporting fact"), made by simulating a small world
// so every answer follows from the story. Four people (mary, john, sandra,
// daniel) move between six places (bathroom, hallway, garden, office,
// bedroom, kitchen); a story is 5 rounds of two moves ("Mary moved to the
// bathroom.", verbs moved / went / journeyed / travelled / went back to,
// person and place uniform) and a question about someone who has moved ("Where is Mary?"),
// answered by the place of that person's latest move, whose line is the
// supporting fact. The split's --train-count / --test-count questions are
// written as stories of 5 (the last story may hold fewer). The files are
// qa1_single-supporting-fact_{train,test}.txt, as bAbI names task 1's.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "workloads/data/file_util.h"
#include "workloads/data/generated_set_writers.h"
#include "workloads/data/sample_rng.h"

namespace powersweep {
namespace {

constexpr const char* kPeople[] = {"Mary", "John", "Sandra", "Daniel"};
constexpr const char* kPlaces[] = {"bathroom", "hallway", "garden",
                                   "office",   "bedroom", "kitchen"};
constexpr const char* kVerbs[] = {"moved to", "went to", "journeyed to",
                                  "travelled to", "went back to"};
constexpr int kPeopleCount = 4;
constexpr int kPlaceCount = 6;
constexpr int kQuestionsPerStory = 5;

std::string BabiFileName(Split split) {
  return absl::StrCat("qa1_single-supporting-fact_", SplitName(split),
                      ".txt");
}

// `questions` questions as stories of up to 5, drawn from `seed`.
std::string WriteStories(int64_t questions, uint64_t seed,
                         ProgressReporter& progress, int64_t progress_base) {
  SampleRng rng(seed);
  std::string out;
  int64_t written = 0;
  while (written < questions) {
    int place[kPeopleCount] = {};
    int64_t moved_on[kPeopleCount] = {};  // line of the latest move, 0 = none
    int64_t id = 0;
    for (int q = 0; q < kQuestionsPerStory && written < questions; ++q) {
      for (int m = 0; m < 2; ++m) {
        const int who = static_cast<int>(rng.UniformInt(0, kPeopleCount - 1));
        const int where = static_cast<int>(rng.UniformInt(0, kPlaceCount - 1));
        const int verb = static_cast<int>(rng.UniformInt(0, 4));
        place[who] = where;
        moved_on[who] = ++id;
        absl::StrAppend(&out, id, " ", kPeople[who], " ", kVerbs[verb],
                        " the ", kPlaces[where], ".\n");
      }
      int who = static_cast<int>(rng.UniformInt(0, kPeopleCount - 1));
      while (moved_on[who] == 0) who = (who + 1) % kPeopleCount;
      absl::StrAppend(&out, ++id, " Where is ", kPeople[who], "? \t",
                      kPlaces[place[who]], "\t", moved_on[who], "\n");
      ++written;
      progress.Report(progress_base + written);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> BabiGeneratedEntries() {
  return {BabiFileName(Split::kTrain), BabiFileName(Split::kTest)};
}

absl::Status WriteBabiSet(const GenerateOptions& o,
                          ProgressReporter& progress) {
  absl::Status st = WriteWholeFile(
      JoinPath(o.out_dir, BabiFileName(Split::kTrain)),
      WriteStories(o.train_count, MixSeed({o.seed, 1}), progress, 0));
  if (!st.ok()) return st;
  return WriteWholeFile(
      JoinPath(o.out_dir, BabiFileName(Split::kTest)),
      WriteStories(o.test_count, MixSeed({o.seed, 2}), progress,
                   o.train_count));
}

}  // namespace powersweep
