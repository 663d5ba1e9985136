#include "controller/modeling/epoch.h"

#include "absl/strings/str_cat.h"

namespace powersweep::modeling {
namespace {

// Samples per split of the built-in data set names (the controller's
// catalog): Fashion-MNIST and MNIST 60,000 training and 10,000 test images;
// CIFAR-10 50,000 and 10,000; GLD23k 23,080 training images (SIGMETRICS
// table) and a validation split of 2,000; "imagenet" the 50,000 ILSVRC-2012
// validation images for both tasks (the HiPC study gives no subset size).
// The same figures as the twin's data set costs
// (agent/platform/twin/dataset_cost.cc). `infer` runs read the test split,
// `train` runs the training split.
struct DatasetSize {
  const char* name;
  int64_t train_samples;
  int64_t test_samples;
};
constexpr DatasetSize kDatasets[] = {
    {"fashion-mnist", 60000, 10000},
    {"mnist", 60000, 10000},
    {"cifar10", 50000, 10000},
    {"gld23k", 23080, 2000},
    {"imagenet", 50000, 50000},
};

const DatasetSize* Find(const std::string& dataset) {
  for (const DatasetSize& d : kDatasets) {
    if (dataset == d.name) return &d;
  }
  return nullptr;
}

}  // namespace

int64_t SplitSamples(const std::string& dataset, v1::Task task) {
  const DatasetSize* d = Find(dataset);
  if (d == nullptr) return 0;
  if (task == v1::TASK_TRAIN) return d->train_samples;
  if (task == v1::TASK_INFER) return d->test_samples;
  return 0;
}

v1::EpochDefinition EpochFor(const std::string& dataset, v1::Task task,
                             int32_t batch_size, int64_t run_minibatches) {
  v1::EpochDefinition e;
  e.set_split(task == v1::TASK_INFER ? "test" : "train");
  const int64_t samples = SplitSamples(dataset, task);
  if (samples > 0 && batch_size > 0 && samples / batch_size > 0) {
    e.set_samples(samples);
    e.set_minibatches(samples / batch_size);
    e.set_unit("epoch");
    e.set_text(absl::StrCat(
        "one epoch = the ", e.split(), " split of ", dataset, " (", samples,
        " samples) in ", e.minibatches(), " minibatches of ", batch_size,
        "; epoch time = mean minibatch time (end to end) x ", e.minibatches()));
    return e;
  }
  e.set_minibatches(run_minibatches);
  e.set_unit("run");
  e.set_text(absl::StrCat(
      "per run, not per epoch: the size of dataset '", dataset,
      "' is not known (controller/modeling/epoch.cc); figures are for ",
      run_minibatches, " minibatches of ", batch_size, ", as the runs did"));
  return e;
}

}  // namespace powersweep::modeling
