// The subcommands of powersweep-workload besides `run` and `idle`, as
// functions of plain option structs so main.cc only maps flags. Each
// prints to `out` and returns the exit code: 0 success, 2 bad arguments
// (the message names the flag), 1 failure (e.g. a file that cannot be
// written). Messages go to the log (stderr).
#ifndef POWERSWEEP_WORKLOADS_COMMANDS_COMMANDS_H_
#define POWERSWEEP_WORKLOADS_COMMANDS_COMMANDS_H_

#include <cstdint>
#include <ostream>
#include <string>

namespace powersweep {

struct DescribeArgs {
  std::string model;
  int64_t classes = 0;     // 0 = the model's study default
  int64_t input_size = 0;  // 0 = the model's study default
  int64_t seq_len = 0;     // sequence models; 0 = the model's default
  int64_t vocab = 0;       // lstm_lm, mobilebert; 0 = the model's default
  int64_t gen_tokens = 0;  // gpt2_small; 0 = the default
  bool json = false;       // one JSON object instead of the text
};

// `powersweep-workload describe`: parameters and forward MACs counted on
// the network itself.
int RunDescribeCommand(const DescribeArgs& args, std::ostream& out);

struct GenDatasetArgs {
  std::string format;  // idx, cifar10, image-folder, text, frames, speech
  std::string out_dir;
  int64_t train_count = 0;
  int64_t test_count = 0;
  int classes = 0;
  int64_t image_size = 0;
  uint64_t seed = 1;
  std::string wordnet_dir;  // text, speech: --from-wordnet
  int64_t vocab = 0;        // text: --vocab
};

// `powersweep-workload gen-dataset`: a synthetic data set in a real format,
// with progress on stderr.
int RunGenDatasetCommand(const GenDatasetArgs& args, std::ostream& out);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_COMMANDS_COMMANDS_H_
