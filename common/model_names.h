// The names of the models powersweep runs: what powersweep-workload builds
// (workloads/models/catalog.cc), what an agent offers (agent/catalog.h), what
// the controller's workload catalog accepts (controller/sweep/catalog.cc) and
// what the twin has cost models for (agent/platform/twin/model_cost.cc).
// Tables that hold per-model data check their name column against this list
// at compile time (NamesAreModelNames).
#ifndef POWERSWEEP_COMMON_MODEL_NAMES_H_
#define POWERSWEEP_COMMON_MODEL_NAMES_H_

#include <array>
#include <cstddef>
#include <string_view>

namespace powersweep {

// Sorted by name.
inline constexpr std::array<const char*, 18> kModelNames = {
    "alexnet",       "deepspeech2",  "dqn",          "gpt2_small",
    "inception_v3",  "lenet5",       "lstm_lm",      "memnet",
    "mobilebert",    "mobilenetv3",  "resnet18",     "resnet50",
    "seq2seq",       "seq2seq_lstm", "squeezenet1_1", "vae",
    "vgg11",         "vgg19"};

// Whether the `name` members of `table` are kModelNames, in order.
template <typename Row, size_t N>
constexpr bool NamesAreModelNames(const Row (&table)[N]) {
  if (N != kModelNames.size()) return false;
  for (size_t i = 0; i < N; ++i) {
    if (std::string_view(table[i].name) != std::string_view(kModelNames[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_MODEL_NAMES_H_
