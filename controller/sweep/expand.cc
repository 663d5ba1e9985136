#include "controller/sweep/expand.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/kernel_names.h"
#include "common/speech_models.h"
#include "common/text_models.h"

namespace powersweep {

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// The cartesian product, without placement or settle (defined below).
std::vector<v1::RunSpec> ExpandMatrix(const v1::SweepSpec& spec);

// Product of `axes`, saturating at kMax; 0 when any axis is empty (also
// after saturating).
int64_t Product(std::initializer_list<int64_t> axes) {
  int64_t count = 1;
  for (int64_t n : axes) {
    if (n <= 0) return 0;
    count = count > kMax / n ? kMax : count * n;
  }
  return count;
}

int64_t BaseloadTasks(const v1::SweepSpec& spec) {
  return std::count(spec.tasks().begin(), spec.tasks().end(),
                    v1::TASK_BASELOAD);
}

// The runtimes of the baseload runs: a container's idle run for container
// runs, the native one for native, vm and container_in_vm runs (an idle VM
// is not measured: vm cells are compared with the native baseload,
// controller/analysis/baseload.cc), each once.
std::vector<int> BaseloadRuntimes(const v1::SweepSpec& spec) {
  std::vector<int> out;
  for (int r : spec.runtimes()) {
    const int b =
        RunsInVm(static_cast<v1::Runtime>(r)) ? v1::RUNTIME_NATIVE : r;
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  }
  return out;
}

// The virtual machines of a vm-runtime cell: the product of vm_vcpus and
// vm_memory_mib, each axis defaulting to `vm`'s one value.
std::vector<v1::VmSpec> VmShapes(const v1::SweepSpec& spec) {
  std::vector<int32_t> vcpus(spec.vm_vcpus().begin(), spec.vm_vcpus().end());
  if (vcpus.empty()) vcpus.push_back(spec.vm().vcpus());
  std::vector<int32_t> mib(spec.vm_memory_mib().begin(),
                           spec.vm_memory_mib().end());
  if (mib.empty()) mib.push_back(spec.vm().memory_mib());
  std::vector<v1::VmSpec> shapes;
  for (int32_t c : vcpus) {
    for (int32_t m : mib) {
      v1::VmSpec& vm = shapes.emplace_back();
      vm.set_vcpus(c);
      vm.set_memory_mib(m);
    }
  }
  return shapes;
}

// A workload cell's runtimes, each vm runtime once per VM shape.
struct RuntimeVariant {
  v1::Runtime runtime;
  std::optional<v1::VmSpec> vm;
};
std::vector<RuntimeVariant> RuntimeVariants(const v1::SweepSpec& spec) {
  std::vector<RuntimeVariant> out;
  for (int r : spec.runtimes()) {
    const auto runtime = static_cast<v1::Runtime>(r);
    if (!RunsInVm(runtime)) {
      out.push_back({runtime, std::nullopt});
      continue;
    }
    for (const v1::VmSpec& vm : VmShapes(spec)) out.push_back({runtime, vm});
  }
  return out;
}

// RuntimeVariants(spec).size(), counted without making them (the axes
// may be huge before the run limit refuses them).
int64_t RuntimeVariantCount(const v1::SweepSpec& spec) {
  int64_t vm = 0;
  int64_t other = 0;
  for (int r : spec.runtimes()) {
    (RunsInVm(static_cast<v1::Runtime>(r)) ? vm : other) += 1;
  }
  const int64_t shapes = Product({std::max(1, spec.vm_vcpus_size()),
                                  std::max(1, spec.vm_memory_mib_size())});
  const int64_t vms = Product({vm, shapes});
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  return vms > kMax - other ? kMax : vms + other;
}

// The tenants axis; [1] when the spec has none.
std::vector<int32_t> Tenants(const v1::SweepSpec& spec) {
  if (spec.tenants().empty()) return {1};
  return {spec.tenants().begin(), spec.tenants().end()};
}

// The prefetch-depth axis; [0] (the loader's default) when absent.
std::vector<int32_t> PrefetchDepths(const v1::SweepSpec& spec) {
  if (spec.prefetch_depths().empty()) return {0};
  return {spec.prefetch_depths().begin(), spec.prefetch_depths().end()};
}

// The page-cache axis; [keep] when absent.
std::vector<v1::PageCache> PageCaches(const v1::SweepSpec& spec) {
  if (spec.page_cache().empty()) return {v1::PAGE_CACHE_KEEP};
  std::vector<v1::PageCache> out;
  for (int p : spec.page_cache()) out.push_back(static_cast<v1::PageCache>(p));
  return out;
}

}  // namespace

absl::StatusOr<WorkloadPair> ParseWorkloadEntry(const std::string& entry) {
  const size_t slash = entry.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == entry.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected MODEL/DATASET[:TASK], e.g. "
                     "resnet50/imagenet:infer, got '",
                     entry, "'"));
  }
  WorkloadPair p;
  p.model = entry.substr(0, slash);
  p.dataset = entry.substr(slash + 1);
  const size_t colon = p.dataset.find(':');
  if (colon != std::string::npos) {
    const std::string task = p.dataset.substr(colon + 1);
    p.dataset.resize(colon);
    std::optional<v1::Task> parsed = ParseWorkloadTask(task);
    if (!parsed.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the task after ':' must be train or infer, got '", task, "'"));
    }
    p.task = *parsed;
  }
  return p;
}

bool ModeAppliesTo(const v1::SweepSpec& spec, int mode_index,
                   const std::string& device_class) {
  if (mode_index >= spec.power_mode_classes_size()) return true;
  const auto& classes = spec.power_mode_classes(mode_index).device_classes();
  return classes.empty() ||
         std::find(classes.begin(), classes.end(), device_class) !=
             classes.end();
}

std::vector<v1::Task> PairTasks(const v1::SweepSpec& spec,
                                const WorkloadPair& pair) {
  if (pair.task != v1::TASK_UNSPECIFIED) return {pair.task};
  std::vector<v1::Task> out;
  for (int t : spec.tasks()) {
    if (t != v1::TASK_BASELOAD) out.push_back(static_cast<v1::Task>(t));
  }
  return out;
}

std::vector<WorkloadPair> WorkloadPairs(const v1::SweepSpec& spec) {
  std::vector<WorkloadPair> pairs;
  if (!spec.workloads().empty()) {
    for (const std::string& w : spec.workloads()) {
      absl::StatusOr<WorkloadPair> p = ParseWorkloadEntry(w);
      pairs.push_back(p.ok() ? *p : WorkloadPair{});
    }
    return pairs;
  }
  for (const std::string& model : spec.models()) {
    for (const std::string& dataset : spec.datasets()) {
      pairs.push_back({model, dataset, v1::TASK_UNSPECIFIED});
    }
  }
  return pairs;
}

int64_t CountRuns(const v1::SweepSpec& spec,
                  const DevicePlacement& placement) {
  // With every_device a class counts once per device of it; each copy
  // runs the modes that apply to its class.
  int64_t class_modes = 0;
  for (const std::string& cls : spec.device_classes()) {
    auto it = placement.devices.find(cls);
    const int64_t copies =
        placement.every_device && it != placement.devices.end()
            ? static_cast<int64_t>(it->second.size())
            : 1;
    int64_t modes = 0;
    for (int i = 0; i < spec.power_modes_size(); ++i) {
      modes += ModeAppliesTo(spec, i, cls) ? 1 : 0;
    }
    const int64_t add = Product({copies, modes});
    class_modes = class_modes > kMax - add ? kMax : class_modes + add;
  }
  const int64_t cells = Product(
      {class_modes, spec.repetitions() > 0 ? spec.repetitions() : 0});
  const int64_t baseload = Product(
      {BaseloadTasks(spec),
       static_cast<int64_t>(BaseloadRuntimes(spec).size())});
  // (workload, task) combinations: every task, or the entry's own task.
  int64_t workload_tasks = 0;
  if (spec.workloads().empty()) {
    workload_tasks = Product({spec.models_size(), spec.datasets_size(),
                              spec.tasks_size() - baseload});
  } else {
    for (const WorkloadPair& p : WorkloadPairs(spec)) {
      workload_tasks += static_cast<int64_t>(PairTasks(spec, p).size());
    }
  }
  const int64_t workloads =
      Product({workload_tasks, RuntimeVariantCount(spec),
               spec.batch_sizes_size(),
               spec.loader_workers_size(),
               std::max(1, spec.tenants_size()),
               std::max(1, spec.prefetch_depths_size()),
               std::max(1, spec.page_cache_size())});
  const int64_t per_cell = baseload + workloads;
  if (cells == 0 || per_cell == 0) return 0;
  return cells > kMax / per_cell ? kMax : cells * per_cell;
}

std::vector<v1::RunSpec> ExpandSweep(const v1::SweepSpec& spec,
                                     const DevicePlacement& placement) {
  std::vector<v1::RunSpec> runs = ExpandMatrix(spec);
  if (placement.devices.empty() && !spec.has_settle()) return runs;
  std::vector<v1::RunSpec> placed;
  placed.reserve(static_cast<size_t>(CountRuns(spec, placement)));
  for (v1::RunSpec& run : runs) {
    if (spec.has_settle()) *run.mutable_settle() = spec.settle();
    auto it = placement.devices.find(run.device_class());
    if (it == placement.devices.end()) {
      placed.push_back(std::move(run));
    } else if (placement.every_device) {
      for (const std::string& device : it->second) {
        v1::RunSpec& copy = placed.emplace_back(run);
        copy.add_devices(device);
      }
    } else {
      for (const std::string& device : it->second) run.add_devices(device);
      placed.push_back(std::move(run));
    }
  }
  return placed;
}

namespace {

std::vector<v1::RunSpec> ExpandMatrix(const v1::SweepSpec& spec) {
  std::vector<v1::RunSpec> runs;
  runs.reserve(static_cast<size_t>(CountRuns(spec)));

  v1::WorkloadSpec base;
  base.set_epochs(spec.epochs());
  base.set_minibatches(spec.minibatches());
  base.set_duration_s(spec.duration_s());
  base.set_seed(spec.seed());
  base.set_threads(spec.threads());
  base.set_warmup_minibatches(spec.warmup_minibatches());
  base.set_cudnn_benchmark(spec.cudnn_benchmark());
  const std::vector<RuntimeVariant> variants = RuntimeVariants(spec);

  // Repetitions are the OUTERMOST loop: all cells of repetition 0 are
  // queued before any cell of repetition 1. The repetitions of one cell are
  // thereby spread over the sweep's lifetime instead of running back to
  // back, so slow drifts (temperature, throttling, background load) show up
  // as variance between repetitions rather than as a bias of one cell.
  for (int32_t rep = 0; rep < spec.repetitions(); ++rep) {
    for (const std::string& device_class : spec.device_classes()) {
      // Baseload cells first: the idle device is measured before its
      // workloads. They have no model, dataset or batch axes.
      for (int64_t b = 0; b < BaseloadTasks(spec); ++b) {
        for (int m = 0; m < spec.power_modes_size(); ++m) {
          if (!ModeAppliesTo(spec, m, device_class)) continue;
          const v1::PowerMode& mode = spec.power_modes(m);
          for (int runtime : BaseloadRuntimes(spec)) {
            v1::RunSpec& run = runs.emplace_back();
            run.set_device_class(device_class);
            run.mutable_workload()->set_task(v1::TASK_BASELOAD);
            run.mutable_workload()->set_duration_s(spec.duration_s());
            *run.mutable_power_mode() = mode;
            run.set_runtime(static_cast<v1::Runtime>(runtime));
            if (runtime == v1::RUNTIME_CONTAINER) {
              run.set_container_image(spec.container_image());
            }
            run.set_repetition(rep);
            run.set_telemetry_hz(spec.telemetry_hz());
            run.set_timeout_s(spec.timeout_s());
            run.set_attempt(1);
            *run.mutable_traces() = spec.traces();
          }
        }
      }
      for (const WorkloadPair& pair : WorkloadPairs(spec)) {
        const std::string& model = pair.model;
        const std::string& dataset = pair.dataset;
        {
          for (v1::Task task : PairTasks(spec, pair)) {
            for (int32_t batch_size : spec.batch_sizes()) {
              for (int32_t workers : spec.loader_workers()) {
               for (int32_t tenants : Tenants(spec)) {
               for (int32_t depth : PrefetchDepths(spec)) {
               for (v1::PageCache cache : PageCaches(spec)) {
                for (int m = 0; m < spec.power_modes_size(); ++m) {
                  if (!ModeAppliesTo(spec, m, device_class)) continue;
                  const v1::PowerMode& mode = spec.power_modes(m);
                  for (const RuntimeVariant& variant : variants) {
                    const v1::Runtime runtime = variant.runtime;
                    v1::RunSpec& run = runs.emplace_back();
                    run.set_device_class(device_class);
                    v1::WorkloadSpec* w = run.mutable_workload();
                    *w = base;
                    w->set_model(model);
                    w->set_dataset(dataset);
                    w->set_task(static_cast<v1::Task>(task));
                    w->set_batch_size(batch_size);
                    w->set_loader_workers(workers);
                    w->set_prefetch_depth(depth);
                    w->set_page_cache(cache);
                    w->set_preload(spec.preload() &&
                                   task == v1::TASK_INFER);
                    // A kernel run has its own untimed iterations.
                    if (IsKernelName(model)) {
                      w->clear_warmup_minibatches();
                      w->clear_cudnn_benchmark();
                    }
                    // input_size sizes images; seq_len and vocab only
                    // reach common/text_models.h's models (gpt2_small
                    // runs at its defaults), and seq_len deepspeech2 (its
                    // frames, common/speech_models.h).
                    if (FindTextModel(model) != nullptr) {
                      w->set_seq_len(spec.seq_len());
                      w->set_vocab(spec.vocab());
                    } else if (FindSpeechModel(model) != nullptr) {
                      w->set_seq_len(spec.seq_len());  // frames
                    } else if (!IsSequenceModel(model)) {
                      w->set_input_size(spec.input_size());
                    }
                    *run.mutable_power_mode() = mode;
                    run.set_runtime(runtime);
                    if (RunsInContainer(runtime)) {
                      run.set_container_image(spec.container_image());
                    }
                    if (variant.vm.has_value()) *run.mutable_vm() = *variant.vm;
                    if (tenants > 1) run.set_tenants(tenants);
                    run.set_repetition(rep);
                    run.set_telemetry_hz(spec.telemetry_hz());
                    run.set_timeout_s(spec.timeout_s());
                    run.set_attempt(1);
                    *run.mutable_traces() = spec.traces();
                  }
                }
               }
               }
               }
              }
            }
          }
        }
      }
    }
  }
  return runs;
}

}  // namespace

}  // namespace powersweep
