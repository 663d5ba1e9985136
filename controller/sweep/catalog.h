// Catalogs the controller validates sweeps against.
//
// DeviceClassCatalog: the device classes a sweep may target, each with its
// core count, the CPU/GPU/memory (EMC) frequencies that may be requested,
// and its nvpmodel preset names. WorkloadCatalog: the models and datasets
// the workload binary knows, and which datasets each model accepts; the
// kernels (common/kernel_names.h) are models whose "dataset" is a shape
// (common/kernel_shape.h: a DeepBench table row or an explicit shape).
//
// Both are plain value types built from data tables (Default() returns the
// built-in tables; tests and future boards build their own). The device
// classes come from the shared power-mode catalog (common/power/
// power_catalog.h), so the controller validates against the same tables,
// presets and study modes the agents use. Immutable after
// construction, so safe to share between threads for reading.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_CATALOG_H_
#define POWERSWEEP_CONTROLLER_SWEEP_CATALOG_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace powersweep {

struct DeviceClassInfo {
  std::string name;  // e.g. "orin-agx"
  // Cores of the board; 0 = varies per device (host: taken from the
  // registered devices' capabilities).
  int cpu_cores = 0;
  // Settable frequencies, ascending. Empty = the knob cannot be set on
  // this class in this version.
  std::vector<int64_t> cpu_freqs_khz;
  std::vector<int64_t> gpu_freqs_hz;
  std::vector<int64_t> mem_freqs_hz;
  // Named modes: nvpmodel presets, then study modes (common/power).
  std::vector<std::string> presets;
};

class DeviceClassCatalog {
 public:
  // The built-in classes (host, nano, orin-agx, orin-nano, orin-nx, thor,
  // xavier-agx, xavier-nx)
  // (PowerCatalog::Default()).
  static DeviceClassCatalog Default();

  explicit DeviceClassCatalog(std::vector<DeviceClassInfo> classes);

  // nullptr when `name` is not a known class.
  const DeviceClassInfo* Find(const std::string& name) const;
  // Known class names, sorted.
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, DeviceClassInfo> classes_;
};

struct ModelInfo {
  std::string name;                   // e.g. "lenet5"
  std::vector<std::string> datasets;  // datasets the model accepts
};

class WorkloadCatalog {
 public:
  // The built-in workloads: lenet5 and vae on the grey IDX sets
  // (fashion-mnist, mnist); dqn on catch-frames (gen-dataset --format
  // frames); mobilenetv3, resnet18, resnet50, squeezenet1_1, vgg11 and vgg19
  // on the RGB sets (cifar10, gld23k, imagenet); alexnet and inception_v3,
  // which cannot take 32x32 images, on gld23k and imagenet; lstm_lm,
  // mobilebert, seq2seq and seq2seq_lstm on the text sets (wikitext,
  // wordnet); memnet on babi (bAbI task 1 as gen-dataset --format babi
  // writes it); deepspeech2 on espeak-words (gen-dataset --format speech); every model on
  // `synthetic` (random tensors of its input shape made in memory,
  // common/synthetic_dataset.h), gpt2_small on nothing else; the kernels
  // conv, gemm and rnn on shapes.
  static WorkloadCatalog Default();

  // This catalog plus data sets the agents advertise under other names
  // (`powersweep-agent --dataset NAME=PATH`); every model accepts those,
  // and the workload checks the shape when the run starts.
  WorkloadCatalog WithDatasets(const std::vector<std::string>& datasets) const;

  WorkloadCatalog(std::vector<ModelInfo> models,
                  std::vector<std::string> datasets);

  bool HasModel(const std::string& model) const;
  bool HasDataset(const std::string& dataset) const;
  // True when both are known and `model` accepts `dataset`; for a kernel,
  // when `dataset` is a shape of it.
  bool Accepts(const std::string& model, const std::string& dataset) const;
  // For a kernel: OK when `shape` parses, else InvalidArgument with the
  // reason (ParseKernelShape's, naming the token).
  absl::Status CheckKernelShape(const std::string& model,
                                const std::string& shape) const;
  // Sorted names; ModelNames are the networks (the `models` axis), not the
  // kernels, which only `workloads` entries name.
  std::vector<std::string> ModelNames() const;
  std::vector<std::string> KernelNames() const;
  std::vector<std::string> DatasetNames() const;

 private:
  std::map<std::string, ModelInfo> models_;
  std::vector<std::string> datasets_;  // sorted
  std::set<std::string> extra_;        // added by WithDatasets
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_CATALOG_H_
