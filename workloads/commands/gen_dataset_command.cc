// RunGenDatasetCommand (commands.h).
#include <chrono>

#include "absl/strings/str_format.h"
#include "common/log.h"
#include "workloads/commands/commands.h"
#include "workloads/data/dataset_generator.h"
#include "workloads/data/text_dataset.h"

namespace powersweep {

int RunGenDatasetCommand(const GenDatasetArgs& args, std::ostream& out) {
  GenerateOptions options;
  options.format = args.format;
  options.out_dir = args.out_dir;
  options.train_count = args.train_count;
  options.test_count = args.test_count;
  options.classes = args.classes;
  options.image_size = args.image_size;
  options.seed = args.seed;
  options.wordnet_dir = args.wordnet_dir;
  options.vocab = args.vocab;
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  absl::Status st =
      GenerateDataset(options, [&](int64_t done, int64_t total) {
        const auto now = std::chrono::steady_clock::now();
        // Written in about a second.
        if (args.format == "text" || args.format == "babi") return;
        if (done != total && now - last < std::chrono::seconds(2)) return;
        last = now;
        PS_LOG(INFO) << absl::StrFormat("gen-dataset: %d/%d files (%.0f%%)",
                                        done, total,
                                        total > 0 ? 100.0 * done / total : 100);
      });
  if (!st.ok()) {
    PS_LOG(ERROR) << st.message();
    return st.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  const double secs = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  if (args.format == "text") {
    // The counts of a WordNet set are the corpus's: read them back.
    absl::StatusOr<std::vector<std::string>> vocab =
        ReadTextVocabulary(args.out_dir + "/" + kTextVocabFile);
    absl::StatusOr<std::vector<uint32_t>> train = absl::UnknownError("");
    absl::StatusOr<std::vector<uint32_t>> test = absl::UnknownError("");
    if (vocab.ok()) {
      train = ReadTextTokens(args.out_dir + "/" + TextTokensFile(Split::kTrain),
                             vocab->size());
      test = ReadTextTokens(args.out_dir + "/" + TextTokensFile(Split::kTest),
                            vocab->size());
    }
    if (!vocab.ok() || !train.ok() || !test.ok()) {
      PS_LOG(ERROR) << "cannot read back the text set written to "
                    << args.out_dir;
      return 1;
    }
    out << absl::StrFormat(
        "wrote a text data set to %s: %d train + %d test tokens, vocabulary "
        "of %d (%s; %.1f s)\n",
        args.out_dir, train->size(), test->size(),
        vocab->size(),
        args.wordnet_dir.empty() ? "Wikipedia-shaped, synthetic"
                                 : "WordNet glosses from " + args.wordnet_dir,
        secs);
    return 0;
  }
  if (args.format == "babi") {
    out << absl::StrFormat(
        "wrote a babi data set to %s: %d train + %d test questions (bAbI "
        "task 1's format, stories of 5 questions from a simulated world; "
        "%.1f s)\n",
        args.out_dir, args.train_count, args.test_count, secs);
    return 0;
  }
  // A frames set's labels are transitions of the game's 3 actions.
  // A speech set's samples are utterances with transcripts.
  const std::string kinds =
      args.format == "frames"   ? std::string("transitions of 3 actions")
      : args.format == "speech" ? std::string(
                                      "29 CTC classes (utterances spoken by "
                                      "espeak-ng, with transcripts)")
                                : absl::StrFormat("%d classes", args.classes);
  out << absl::StrFormat(
      "wrote a %s data set to %s: %d train + %d test samples in %s "
      "(%.1f s)\n",
      args.format, args.out_dir, args.train_count, args.test_count, kinds,
      secs);
  return 0;
}

}  // namespace powersweep
