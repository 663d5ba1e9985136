// TwinWorkloadCost: a model costed on a data set: the model is walked at
// the input the data set gives it (channels, size, classes; cifar10 3x32x32
// with 10 classes, gld23k 3x224x224 with 2,000, ...), so resnet18 on
// cifar10 and resnet18 on imagenet are different workloads, as they are on
// a device. A run may override the classes and, for image folders (the
// others keep their native size, as the workload does), the input size
// (the workload's --input-size). Without an override an image folder is
// decoded to 224x224, or to the model's larger study default (inception_v3:
// 299), as the workload does (ImageFolderInputSize). On `synthetic` data a
// model gets its own default input (and --input-size applies).
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_WORKLOAD_COST_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_WORKLOAD_COST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/platform/twin/dataset_cost.h"
#include "agent/platform/twin/model_cost.h"

namespace powersweep {

struct TwinWorkloadCost {
  ModelCost model;
  DatasetCost dataset;
};

struct TwinInputOverride {
  int classes = 0;     // 0: the data set's
  int input_size = 0;  // 0: the data set's; only image folders and synthetic
  int seq_len = 0;     // sequence models (deepspeech2: frames): 0 = default
  int vocab = 0;       // sequence models: 0 = the data set's (or the model's)
};

// NotFound naming an unknown model or data set (model checked first);
// InvalidArgument naming both when the model cannot take the data set's
// samples (lenet5 on an RGB set, an RGB model on 28x28 grey images, an
// image model on a text set or a sequence model on images, deepspeech2 on
// anything but a speech set or synthetic, another model on a speech set).
// deepspeech2 takes seq_len as its window of frames. On a text set
// the model reads seq_len tokens (the override or the model's default,
// common/text_models.h) and the split's samples are its windows.
absl::StatusOr<TwinWorkloadCost> TwinWorkloadCostFor(
    const std::string& model, const std::string& dataset,
    const TwinInputOverride& override_input = {});

struct TwinWorkloadPair {
  std::string model;
  std::string dataset;
};

// Every (model, data set) pair TwinWorkloadCostFor accepts without
// overrides, by model then data set: lenet5 and vae on fashion-mnist and
// mnist; dqn on catch-frames; deepspeech2 on espeak-words; the RGB models on
// gld23k and imagenet, and on
// cifar10 those that take 32x32 (not alexnet nor inception_v3); every model
// on synthetic (gpt2_small on nothing else).
std::vector<TwinWorkloadPair> TwinWorkloadPairs();

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_WORKLOAD_COST_H_
