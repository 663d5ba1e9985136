// Internal to the generator (dataset_generator.h): the writers of each
// format's files into an output directory already checked and emptied, and
// the throttled progress reporter they share. Options must be resolved.
// Errors name the file being written. Not for use outside data/.
#ifndef POWERSWEEP_WORKLOADS_DATA_GENERATED_SET_WRITERS_H_
#define POWERSWEEP_WORKLOADS_DATA_GENERATED_SET_WRITERS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "workloads/data/dataset_generator.h"

namespace powersweep {

// Calls the progress callback about a hundred times over a run, and once
// at the end. Call it from one thread only.
class ProgressReporter {
 public:
  ProgressReporter(const GenerateProgress& progress, int64_t total)
      : progress_(progress),
        total_(total),
        step_(std::max<int64_t>(total / 100, 1)) {}
  void Report(int64_t done) {
    if (progress_ && done >= next_ && done < total_) {
      progress_(done, total_);
      next_ = done + step_;
    }
  }
  void Finish() {
    if (progress_) progress_(total_, total_);
  }

 private:
  const GenerateProgress& progress_;
  const int64_t total_;
  const int64_t step_;
  int64_t next_ = 0;
};

// The top-level entries (file or folder names) a generation of `format`
// may write, the marker excepted.
std::vector<std::string> GeneratedEntries(const std::string& format);

absl::Status WriteIdxSet(const GenerateOptions& options,
                         ProgressReporter& progress);
absl::Status WriteCifar10Set(const GenerateOptions& options,
                             ProgressReporter& progress);
absl::Status WriteImageFolderSet(const GenerateOptions& options,
                                 ProgressReporter& progress);
absl::Status WriteFramesSet(const GenerateOptions& options,
                            ProgressReporter& progress);
// text (generated_text.cc): the WordNet glosses when options.wordnet_dir is
// set, else the Wikipedia-shaped synthetic corpus.
absl::Status WriteTextSet(const GenerateOptions& options,
                          ProgressReporter& progress);
// babi (generated_babi.cc): task-1-shaped stories of a simulated world.
absl::Status WriteBabiSet(const GenerateOptions& options,
                          ProgressReporter& progress);
std::vector<std::string> BabiGeneratedEntries();
// speech (generated_speech.cc): espeak-ng utterances of WordNet words.
absl::Status WriteSpeechSet(const GenerateOptions& options,
                            ProgressReporter& progress);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_GENERATED_SET_WRITERS_H_
