// parity_export: writes one torchvision parity case (parity_case.h) for
// checking by hand:
//   parity_export --model resnet18 [--classes N] [--input-size S]
//                 [--seed K] [--batch B] --out DIR
//   /usr/bin/python3 tests/workloads/models/torchvision_parity.py DIR
// Prints the model's description; exit 1 on an error, with its message.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "workloads/cli/flag_args.h"
#include "workloads/models/parity_case.h"

ABSL_FLAG(std::string, model, "", "model name (workloads/models/catalog.h)");
ABSL_FLAG(int64_t, classes, 0, "class count; 0 = the study default");
ABSL_FLAG(int64_t, input_size, 0, "input height = width; 0 = the default");
ABSL_FLAG(uint64_t, seed, 1, "torch::manual_seed for weights and input");
ABSL_FLAG(int64_t, batch, 2, "input batch size (at least 2)");
ABSL_FLAG(std::string, out, "", "directory to write the case to");

int main(int argc, char** argv) {
  std::vector<std::string> args = powersweep::NormalizeFlagArgs(argc, argv);
  std::vector<char*> normalized;
  for (std::string& a : args) normalized.push_back(a.data());
  absl::ParseCommandLine(static_cast<int>(normalized.size()),
                         normalized.data());
  if (absl::GetFlag(FLAGS_out).empty()) {
    std::cerr << "parity_export: --out is required\n";
    return 1;
  }
  powersweep::ParityCase c;
  c.model = absl::GetFlag(FLAGS_model);
  c.options.num_classes = absl::GetFlag(FLAGS_classes);
  c.options.input_size = absl::GetFlag(FLAGS_input_size);
  c.seed = absl::GetFlag(FLAGS_seed);
  c.batch = absl::GetFlag(FLAGS_batch);
  absl::StatusOr<powersweep::ModelDescription> d =
      powersweep::WriteParityCase(c, absl::GetFlag(FLAGS_out));
  if (!d.ok()) {
    std::cerr << "parity_export: " << d.status().message() << "\n";
    return 1;
  }
  std::cout << powersweep::FormatModelDescription(*d);
  return 0;
}
