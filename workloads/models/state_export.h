// Dumps tensors and a model's state so Python (numpy, torch) can read them.
//
// WriteNpy writes one tensor as a NumPy .npy file: format version 1.0,
// little-endian, C order; float32 as '<f4', int64 as '<i8' (numpy.load
// reads it; torch.from_numpy turns it into a tensor). Other dtypes are
// kInvalidArgument; a file that cannot be written is kInternal naming it.
//
// ExportModuleState writes every parameter and buffer of `module` as
// DIR/<key>.npy, <key> being the dotted name ("layer1.0.bn1.running_mean",
// the torchvision state_dict key for the models of model.h), and
// DIR/state.txt with one line per tensor in module order:
//   <param|buffer> <key> <f4|i8> <d0,d1,...>   (shape "-" for a scalar)
// DIR is created if missing. Tensors on another device are copied to the
// CPU first. Not thread-safe with respect to `module`.
#ifndef POWERSWEEP_WORKLOADS_MODELS_STATE_EXPORT_H_
#define POWERSWEEP_WORKLOADS_MODELS_STATE_EXPORT_H_

#include <torch/torch.h>

#include <string>

#include "absl/status/status.h"

namespace powersweep {

absl::Status WriteNpy(const torch::Tensor& tensor, const std::string& path);

absl::Status ExportModuleState(const torch::nn::Module& module,
                               const std::string& dir);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_STATE_EXPORT_H_
