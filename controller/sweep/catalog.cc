#include "controller/sweep/catalog.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

#include "common/kernel_names.h"
#include "common/kernel_shape.h"
#include "common/model_names.h"
#include "common/power/power_catalog.h"
#include "common/synthetic_dataset.h"
#include "common/speech_models.h"
#include "common/text_models.h"

namespace powersweep {
namespace {

// The classes of the shared power-mode catalog (common/power): frequency
// tables from the platform reference, and as presets the nvpmodel modes
// followed by the study modes (PM1_CPU, sigmetrics-a, ...).
std::vector<DeviceClassInfo> BuiltInClasses() {
  const PowerCatalog catalog = PowerCatalog::Default();
  std::vector<DeviceClassInfo> classes;
  for (const std::string& name : catalog.ClassNames()) {
    const PowerCatalog::ClassEntry* e = catalog.Find(name);
    classes.push_back(DeviceClassInfo{
        e->spec.name, e->spec.cpu_cores, e->spec.cpu_freqs_khz,
        e->spec.gpu_freqs_hz, e->spec.mem_freqs_hz,
        catalog.PresetNames(name)});
  }
  return classes;
}

}  // namespace

DeviceClassCatalog DeviceClassCatalog::Default() {
  return DeviceClassCatalog(BuiltInClasses());
}

DeviceClassCatalog::DeviceClassCatalog(std::vector<DeviceClassInfo> classes) {
  for (DeviceClassInfo& c : classes) {
    std::sort(c.cpu_freqs_khz.begin(), c.cpu_freqs_khz.end());
    std::sort(c.gpu_freqs_hz.begin(), c.gpu_freqs_hz.end());
    std::sort(c.mem_freqs_hz.begin(), c.mem_freqs_hz.end());
    std::string name = c.name;
    classes_[name] = std::move(c);
  }
}

const DeviceClassInfo* DeviceClassCatalog::Find(const std::string& name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

std::vector<std::string> DeviceClassCatalog::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, info] : classes_) names.push_back(name);
  return names;
}

WorkloadCatalog WorkloadCatalog::Default() {
  // LeNet-5 takes 28x28 grey images (IDX sets); the torchvision networks
  // take RGB: CIFAR-10 at 32x32 or image folders at input_size. AlexNet
  // (63x63 at least) and Inception-v3 (75x75, 299x299 to train) cannot
  // take CIFAR-10's 32x32 images (workloads/models/catalog.h). The sequence
  // models lstm_lm and mobilebert (common/text_models.h) take token files:
  // the WordNet glosses and the Wikipedia-shaped set gen-dataset writes.
  // seq2seq and seq2seq_lstm too; memnet takes bAbI sets (gen-dataset --format babi) only.
  // LeNet-5 and the VAE take the grey sets; the DQN the frames of its game
  // (gen-dataset --format frames); gpt2_small (a fixed vocabulary of
  // 50,257) runs on synthetic only; deepspeech2 (common/speech_models.h)
  // on the espeak-ng utterances of gen-dataset --format speech.
  const std::vector<std::string> grey = {"fashion-mnist", "mnist"};
  const std::vector<std::string> frames = {"catch-frames"};
  const std::vector<std::string> rgb = {"cifar10", "gld23k", "imagenet"};
  const std::vector<std::string> large_rgb = {"gld23k", "imagenet"};
  const std::vector<std::string> text = {"wikitext", "wordnet"};
  const std::vector<std::string> babi = {"babi"};
  const std::vector<std::string> speech = {"espeak-words"};
  std::vector<std::string> all = grey;
  all.insert(all.end(), babi.begin(), babi.end());
  all.insert(all.end(), frames.begin(), frames.end());
  all.insert(all.end(), rgb.begin(), rgb.end());
  all.insert(all.end(), text.begin(), text.end());
  all.insert(all.end(), speech.begin(), speech.end());
  // Every model takes `synthetic` (common/synthetic_dataset.h): random
  // tensors of its own input shape.
  const std::string synthetic(kSyntheticDataset);
  all.push_back(synthetic);
  std::vector<ModelInfo> models;
  for (const char* name : kModelNames) {
    const std::string model = name;
    std::vector<std::string> sets =
        FindTextModel(model) != nullptr                   ? text
        : model == "lenet5"                               ? grey
        : model == "alexnet" || model == "inception_v3" ? large_rgb
                                                          : rgb;
    if (model == "vae") sets = grey;
    if (model == "dqn") sets = frames;
    if (model == "memnet") sets = babi;
    if (model == "gpt2_small") sets = {};
    if (FindSpeechModel(model) != nullptr) sets = speech;
    sets.push_back(synthetic);
    models.push_back(ModelInfo{model, std::move(sets)});
  }
  // Kernels take shapes, not data sets (Accepts parses them).
  for (const char* name : kKernelNames) models.push_back(ModelInfo{name, {}});
  return WorkloadCatalog(std::move(models), all);
}

WorkloadCatalog WorkloadCatalog::WithDatasets(
    const std::vector<std::string>& datasets) const {
  // Sets, not sorted-vector inserts: every device advertises its data
  // sets, so this list can be long.
  WorkloadCatalog out = *this;
  std::set<std::string> all(datasets_.begin(), datasets_.end());
  for (const std::string& d : datasets) {
    if (all.insert(d).second) out.extra_.insert(d);
  }
  out.datasets_.assign(all.begin(), all.end());
  return out;
}

WorkloadCatalog::WorkloadCatalog(std::vector<ModelInfo> models,
                                 std::vector<std::string> datasets)
    : datasets_(std::move(datasets)) {
  for (ModelInfo& m : models) {
    std::string name = m.name;
    models_[name] = std::move(m);
  }
  std::sort(datasets_.begin(), datasets_.end());
}

bool WorkloadCatalog::HasModel(const std::string& model) const {
  return models_.count(model) > 0;
}

bool WorkloadCatalog::HasDataset(const std::string& dataset) const {
  return std::binary_search(datasets_.begin(), datasets_.end(), dataset);
}

absl::Status WorkloadCatalog::CheckKernelShape(const std::string& model,
                                               const std::string& shape) const {
  if (!HasModel(model) || !IsKernelName(model)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", model, "' is not a kernel of this catalog"));
  }
  return ParseKernelShape(model, shape).status();
}

bool WorkloadCatalog::Accepts(const std::string& model,
                              const std::string& dataset) const {
  if (IsKernelName(model)) return CheckKernelShape(model, dataset).ok();
  auto it = models_.find(model);
  if (it == models_.end() || !HasDataset(dataset)) return false;
  // A data set only an agent knows: its shape is checked when the run starts.
  if (extra_.count(dataset) > 0) return true;
  const std::vector<std::string>& ok = it->second.datasets;
  return std::find(ok.begin(), ok.end(), dataset) != ok.end();
}

std::vector<std::string> WorkloadCatalog::ModelNames() const {
  std::vector<std::string> names;
  for (const auto& [name, info] : models_) {
    if (!IsKernelName(name)) names.push_back(name);
  }
  return names;
}

std::vector<std::string> WorkloadCatalog::KernelNames() const {
  std::vector<std::string> names;
  for (const auto& [name, info] : models_) {
    if (IsKernelName(name)) names.push_back(name);
  }
  return names;
}

std::vector<std::string> WorkloadCatalog::DatasetNames() const {
  return datasets_;
}

}  // namespace powersweep
