// One case of the parity check against torchvision: a model built here,
// its weights, an input and the output it gives, written to a directory
// that tests/workloads/models/torchvision_parity.py reads.
//
// WriteParityCase seeds torch's generator with `seed`, builds the model
// (MakeModel), runs two training-mode forward passes on random batches so
// the batch norms hold non-trivial running statistics, switches to eval
// mode, and writes into `dir` (created if missing):
//   meta.txt    "key value" lines: model, channels, input_size, classes,
//               params, trainable_params, forward_macs, seed, batch,
//               seq_len, vocab (0 for image models)
//   state/      every parameter and buffer (ExportModuleState)
//   input.npy   (batch, C, H, W) float32, standard normal; for sequence
//               models (batch, 1, 1, tokens) random token ids
//               (Model::SyntheticBatch)
//   output.npy  (batch, classes) float32, the eval-mode output (no-grad);
//               sequence models (batch, seq_len, vocab)
//   aux_output.npy  inception_v3 only: its auxiliary classifier's
//               training-mode output on the same input (written after the
//               state, as that pass moves the batch norms' statistics)
// and returns the model's description. Errors: MakeModel's, or a write
// failure naming the file. Uses torch's global generator: call from one
// thread at a time.
#ifndef POWERSWEEP_WORKLOADS_MODELS_PARITY_CASE_H_
#define POWERSWEEP_WORKLOADS_MODELS_PARITY_CASE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "workloads/models/catalog.h"
#include "workloads/models/describe.h"

namespace powersweep {

struct ParityCase {
  std::string model;
  ModelOptions options;
  uint64_t seed = 1;
  int64_t batch = 2;
};

absl::StatusOr<ModelDescription> WriteParityCase(const ParityCase& c,
                                                 const std::string& dir);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_PARITY_CASE_H_
