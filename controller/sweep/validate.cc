#include "controller/sweep/validate.h"

#include "controller/sweep/placement.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"
#include "common/kernel_names.h"
#include "common/synthetic_dataset.h"
#include "controller/sweep/expand.h"
#include "controller/sweep/validate_devices.h"
#include "controller/sweep/validate_model_inputs.h"
#include "controller/sweep/validate_vm.h"

namespace powersweep {
namespace {

using Problems = std::vector<std::string>;

std::string Known(const std::vector<std::string>& names) {
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

// "field[i]: duplicate of field[j] (value)" for repeated values of an axis
// (j the first occurrence). One pass with a hash map: linear in the list.
template <typename T, typename Fmt>
void CheckDuplicates(const std::string& field, const std::vector<T>& values,
                     Fmt fmt, Problems* problems) {
  absl::flat_hash_map<T, size_t> first;
  first.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    auto [it, inserted] = first.emplace(values[i], i);
    if (!inserted) {
      problems->push_back(absl::StrCat(field, "[", i, "]: duplicate of ",
                                       field, "[", it->second, "] (",
                                       fmt(values[i]), ")"));
    }
  }
}

template <typename Repeated>
auto ToVector(const Repeated& r) {
  return std::vector<typename Repeated::value_type>(r.begin(), r.end());
}

const auto kSelf = [](const auto& v) { return absl::StrCat(v); };

// Whether the sweep has baseload runs (`baseload`) or workload runs: a
// workload entry's :train/:infer suffix is a workload task too.
bool HasTask(const v1::SweepSpec& spec, bool baseload) {
  for (int t : spec.tasks()) {
    if ((t == v1::TASK_BASELOAD) == baseload) return true;
  }
  if (baseload) return false;
  for (const WorkloadPair& p : WorkloadPairs(spec)) {
    if (p.task != v1::TASK_UNSPECIFIED) return true;
  }
  return false;
}

// Whether some run is an inference run: `infer` in tasks, or a workload
// entry with the :infer suffix.
bool HasInfer(const v1::SweepSpec& spec) {
  if (std::find(spec.tasks().begin(), spec.tasks().end(), v1::TASK_INFER) !=
      spec.tasks().end()) {
    return true;
  }
  for (const WorkloadPair& p : WorkloadPairs(spec)) {
    if (p.task == v1::TASK_INFER) return true;
  }
  return false;
}

// power_mode_classes (the device_class key of power_modes entries): one
// entry per power mode, classes of the sweep, and a mode for every class.
void CheckPowerModeClasses(const v1::SweepSpec& spec, Problems* problems) {
  if (spec.power_mode_classes().empty()) return;
  if (spec.power_mode_classes_size() != spec.power_modes_size()) {
    problems->push_back(absl::StrCat(
        "power_mode_classes: ", spec.power_mode_classes_size(),
        " entries for ", spec.power_modes_size(),
        " power modes (one per power mode, an empty one for every class)"));
    return;
  }
  const std::vector<std::string> sweep_classes(spec.device_classes().begin(),
                                               spec.device_classes().end());
  for (int i = 0; i < spec.power_mode_classes_size(); ++i) {
    const auto& classes = spec.power_mode_classes(i).device_classes();
    for (int j = 0; j < classes.size(); ++j) {
      if (std::find(sweep_classes.begin(), sweep_classes.end(), classes[j]) ==
          sweep_classes.end()) {
        problems->push_back(absl::StrCat(
            "power_modes[", i, "].device_class",
            classes.size() > 1 ? absl::StrCat("es[", j, "]") : "", ": '",
            classes[j], "' is not one of device_classes (",
            absl::StrJoin(sweep_classes, ", "), ")"));
      }
    }
  }
  for (int c = 0; c < spec.device_classes_size(); ++c) {
    bool any = false;
    for (int i = 0; i < spec.power_modes_size() && !any; ++i) {
      any = ModeAppliesTo(spec, i, spec.device_classes(c));
    }
    if (!any) {
      problems->push_back(absl::StrCat(
          "device_classes[", c, "]: no power mode applies to ",
          spec.device_classes(c),
          " (every power_modes entry names other classes; add one with "
          "device_class: ", spec.device_classes(c), ")"));
    }
  }
}

void CheckNames(const std::string& field, const std::string& what,
                const google::protobuf::RepeatedPtrField<std::string>& names,
                const std::vector<std::string>& known, Problems* problems) {
  if (names.empty()) {
    problems->push_back(absl::StrCat(field, ": at least one ", what,
                                     " is required (known: ", Known(known),
                                     ")"));
  }
  const absl::flat_hash_set<std::string> known_set(known.begin(), known.end());
  for (int i = 0; i < names.size(); ++i) {
    if (!known_set.contains(names[i])) {
      problems->push_back(absl::StrCat(field, "[", i, "]: unknown ", what, " '",
                                       names[i], "' (known: ", Known(known),
                                       ")"));
    }
  }
  CheckDuplicates(field, ToVector(names), kSelf, problems);
}

// Baseload cells run no workload, so a sweep of only baseload tasks needs
// no model, dataset or batch size (any given are still checked).
// The `workloads` form: MODEL/DATASET pairs.
// Synthetic data (common/synthetic_dataset.h) reuses one random minibatch,
// so a run on it cannot stop after epochs.
std::string SyntheticHasNoEpochs(const std::string& model) {
  return absl::StrCat(model,
                      " on synthetic data has no epochs (one random minibatch "
                      "is reused): set epochs to 0 and stop with minibatches "
                      "or duration_s");
}

void CheckWorkloadPairs(const v1::SweepSpec& spec, const WorkloadCatalog& w,
                        Problems* problems) {
  if (!spec.models().empty() || !spec.datasets().empty()) {
    problems->push_back(
        "workloads: give either workloads (MODEL/DATASET pairs) or models and "
        "datasets, not both");
  }
  const std::string known = absl::StrCat(
      " (models: ", absl::StrJoin(w.ModelNames(), ", "),
      "; datasets: ", absl::StrJoin(w.DatasetNames(), ", "),
      "; kernels: ", absl::StrJoin(w.KernelNames(), ", "), " on shapes)");
  bool workload_tasks = false;
  for (int t : spec.tasks()) workload_tasks |= t != v1::TASK_BASELOAD;
  for (int i = 0; i < spec.workloads_size(); ++i) {
    const std::string at = absl::StrCat("workloads[", i, "]: ");
    absl::StatusOr<WorkloadPair> pair = ParseWorkloadEntry(spec.workloads(i));
    if (!pair.ok()) {
      problems->push_back(absl::StrCat(at, pair.status().message()));
      continue;
    }
    const std::string& model = pair->model;
    const std::string& dataset = pair->dataset;
    // A :train/:infer suffix implies its task (expand.h, PairTasks); an
    // unsuffixed entry needs a workload task in tasks.
    if (pair->task == v1::TASK_UNSPECIFIED && !workload_tasks) {
      problems->push_back(absl::StrCat(
          at, "no task: tasks has no train or infer, so this workload would "
          "never run (add a task, or a suffix: ", spec.workloads(i),
          ":infer)"));
    }
    if (!w.HasModel(model)) {
      problems->push_back(
          absl::StrCat(at, "unknown model '", model, "'", known));
    } else if (IsKernelName(model)) {
      absl::Status st = w.CheckKernelShape(model, dataset);
      if (!st.ok()) problems->push_back(absl::StrCat(at, st.message()));
      if (spec.epochs() > 0) {
        problems->push_back(absl::StrCat(
            at, "kernel ", model, " reads no data set, so it has no epochs; "
            "stop it with minibatches (timed iterations) or duration_s"));
      }
    } else if (!w.HasDataset(dataset)) {
      problems->push_back(
          absl::StrCat(at, "unknown dataset '", dataset, "'", known));
    } else if (!w.Accepts(model, dataset)) {
      problems->push_back(absl::StrCat(at, "model ", model,
                                       " cannot use dataset ", dataset));
    } else if (IsSyntheticDataset(dataset) && spec.epochs() > 0) {
      problems->push_back(absl::StrCat(at, SyntheticHasNoEpochs(model)));
    }
  }
  CheckDuplicates("workloads", ToVector(spec.workloads()), kSelf, problems);
}

void CheckWorkloads(const v1::SweepSpec& spec, const WorkloadCatalog& w,
                    Problems* problems) {
  if (!spec.workloads().empty()) {
    CheckWorkloadPairs(spec, w, problems);
    return;
  }
  if (!HasTask(spec, /*baseload=*/false) && spec.models().empty() &&
      spec.datasets().empty()) {
    return;
  }
  CheckNames("models", "model", spec.models(), w.ModelNames(), problems);
  CheckNames("datasets", "dataset", spec.datasets(), w.DatasetNames(),
             problems);
  // Each known model once (repeats are reported as duplicates), so this
  // is linear in the datasets: at most catalog-many models per dataset.
  std::vector<std::string> models;
  absl::flat_hash_set<std::string> seen;
  for (const std::string& model : spec.models()) {
    if (w.HasModel(model) && seen.insert(model).second) models.push_back(model);
  }
  for (int d = 0; d < spec.datasets_size(); ++d) {
    if (!w.HasDataset(spec.datasets(d))) continue;
    if (IsSyntheticDataset(spec.datasets(d)) && spec.epochs() > 0) {
      problems->push_back(
          absl::StrCat("datasets[", d, "]: ", SyntheticHasNoEpochs("a model")));
    }
    for (const std::string& model : models) {
      if (!w.Accepts(model, spec.datasets(d))) {
        problems->push_back(absl::StrCat("datasets[", d, "]: model ", model,
                                         " cannot use dataset ",
                                         spec.datasets(d)));
      }
    }
  }
}

void CheckEnums(const v1::SweepSpec& spec, Problems* problems) {
  for (int i = 0; i < spec.tasks_size(); ++i) {
    int t = spec.tasks(i);
    if (t == v1::TASK_UNSPECIFIED) {
      problems->push_back(absl::StrCat(
          "tasks[", i, "]: task is unspecified (use train, infer or baseload)"));
    } else if (!v1::Task_IsValid(t)) {
      problems->push_back(absl::StrCat("tasks[", i, "]: unknown task value ", t,
                                       " (use train, infer or baseload)"));
    }
  }
  CheckDuplicates("tasks", ToVector(spec.tasks()), kSelf, problems);
  for (int i = 0; i < spec.runtimes_size(); ++i) {
    int r = spec.runtimes(i);
    if (r == v1::RUNTIME_UNSPECIFIED) {
      problems->push_back(
          absl::StrCat("runtimes[", i,
                       "]: runtime is unspecified (use native, container, "
                       "vm or container_in_vm)"));
    } else if (!v1::Runtime_IsValid(r)) {
      problems->push_back(absl::StrCat("runtimes[", i,
                                       "]: unknown runtime value ", r,
                                       " (use native, container, vm or "
                                       "container_in_vm)"));
    }
  }
  CheckDuplicates("runtimes", ToVector(spec.runtimes()), kSelf, problems);
  CheckVmSize(spec, problems);
}

void CheckIntAxes(const v1::SweepSpec& spec, Problems* problems) {
  if (spec.batch_sizes().empty() && HasTask(spec, /*baseload=*/false)) {
    problems->push_back("batch_sizes: at least one batch size is required");
  }
  for (int i = 0; i < spec.batch_sizes_size(); ++i) {
    int32_t b = spec.batch_sizes(i);
    if (b <= 0) {
      problems->push_back(
          absl::StrCat("batch_sizes[", i, "]: must be positive, got ", b));
    } else if (b > kMaxBatchSize) {
      problems->push_back(absl::StrCat("batch_sizes[", i, "]: must be at most ",
                                       kMaxBatchSize, ", got ", b));
    }
  }
  CheckDuplicates("batch_sizes", ToVector(spec.batch_sizes()), kSelf, problems);
  for (int i = 0; i < spec.loader_workers_size(); ++i) {
    int32_t w = spec.loader_workers(i);
    if (w < 0 || w > kMaxLoaderWorkers) {
      problems->push_back(absl::StrCat("loader_workers[", i,
                                       "]: must be between 0 and ",
                                       kMaxLoaderWorkers, ", got ", w));
    }
  }
  CheckDuplicates("loader_workers", ToVector(spec.loader_workers()), kSelf,
                  problems);
  for (int i = 0; i < spec.tenants_size(); ++i) {
    int32_t t = spec.tenants(i);
    if (t < 1 || t > kMaxTenants) {
      problems->push_back(absl::StrCat("tenants[", i,
                                       "]: must be between 1 and ", kMaxTenants,
                                       ", got ", t));
    }
  }
  CheckDuplicates("tenants", ToVector(spec.tenants()), kSelf, problems);
  for (int i = 0; i < spec.prefetch_depths_size(); ++i) {
    int32_t d = spec.prefetch_depths(i);
    if (d < 0 || d > kMaxPrefetchDepth) {
      problems->push_back(absl::StrCat(
          "prefetch_depths[", i, "]: must be between 0 (two per loader "
          "worker) and ", kMaxPrefetchDepth, ", got ", d));
    }
  }
  CheckDuplicates("prefetch_depths", ToVector(spec.prefetch_depths()), kSelf,
                  problems);
  for (int i = 0; i < spec.page_cache_size(); ++i) {
    int p = spec.page_cache(i);
    if (p == v1::PAGE_CACHE_UNSPECIFIED || !v1::PageCache_IsValid(p)) {
      problems->push_back(absl::StrCat("page_cache[", i,
                                       "]: use keep or drop, got ", p));
    }
  }
  CheckDuplicates("page_cache", ToVector(spec.page_cache()), kSelf, problems);
  for (int i = 0; i < spec.traces_size(); ++i) {
    int t = spec.traces(i);
    if (t == v1::TRACE_UNSPECIFIED || !v1::Trace_IsValid(t)) {
      problems->push_back(absl::StrCat(
          "traces[", i, "]: use syscalls, block, writeback, page_faults or "
          "sched, got ", t));
    }
  }
  CheckDuplicates("traces", ToVector(spec.traces()),
                  [](int t) { return TraceText(static_cast<v1::Trace>(t)); },
                  problems);
  if (spec.preload() && !HasInfer(spec)) {
    problems->push_back(
        "preload: applies to infer runs only, and tasks has no infer");
  }
}

void CheckScalars(const v1::SweepSpec& spec, Problems* problems) {
  auto add = [&](auto&&... parts) {
    problems->push_back(absl::StrCat(parts...));
  };
  if (spec.repetitions() < 1) {
    add("repetitions: must be at least 1, got ", spec.repetitions());
  }
  if (spec.epochs() < 0) {
    add("epochs: must not be negative, got ", spec.epochs());
  } else if (spec.epochs() > kMaxEpochs) {
    add("epochs: must be at most ", kMaxEpochs, ", got ", spec.epochs());
  }
  if (spec.minibatches() < 0) {
    add("minibatches: must not be negative, got ", spec.minibatches());
  } else if (spec.minibatches() > kMaxMinibatches) {
    add("minibatches: must be at most ", kMaxMinibatches, ", got ",
        spec.minibatches());
  }
  const double duration = spec.duration_s();
  if (!std::isfinite(duration)) {
    add("duration_s: must be a finite number, got ", duration);
  } else if (duration < 0) {
    add("duration_s: must not be negative, got ", duration);
  } else if (duration > kMaxRunSeconds) {
    add("duration_s: must be at most 604800 (7 days), got ", duration);
  }
  if (HasTask(spec, /*baseload=*/true) && !(duration > 0)) {
    add("duration_s: a baseload task measures the idle device for duration_s,"
        " which must be positive");
  } else if (spec.epochs() <= 0 && spec.minibatches() <= 0 &&
             !(duration > 0)) {
    add("epochs/minibatches/duration_s: one of epochs, minibatches, "
        "duration_s must be positive (the run needs a stop condition)");
  }
  if (spec.warmup_minibatches() < -1 ||
      spec.warmup_minibatches() > 1000000) {
    add("warmup_minibatches: must be -1 (none), 0 (the default: 3 on a CUDA "
        "device, none on the CPU) or a count up to 1000000, got ",
        spec.warmup_minibatches());
  }
  if (spec.threads() < 0 || spec.threads() > kMaxThreads) {
    add("threads: must be between 0 and ", kMaxThreads,
        " (0 = all cores), got ", spec.threads());
  }
  const double hz = spec.telemetry_hz();
  if (!(hz > 0 && hz <= kMaxTelemetryHz)) {
    add("telemetry_hz: must be more than 0 and at most ", kMaxTelemetryHz,
        ", got ", hz);
  }
  const double timeout = spec.timeout_s();
  if (!(timeout > 0) || !std::isfinite(timeout)) {
    add("timeout_s: must be a positive number of seconds, got ", timeout);
  } else if (timeout > kMaxRunSeconds) {
    add("timeout_s: must be at most 604800 (7 days), got ", timeout);
  } else if (std::isfinite(duration) && duration > 0 && timeout <= duration) {
    add("timeout_s: ", timeout, " is not longer than duration_s ", duration,
        ", so every run would time out");
  }
  if (spec.max_retries() < 0 || spec.max_retries() > kMaxRetries) {
    add("max_retries: must be between 0 and ", kMaxRetries, ", got ",
        spec.max_retries());
  }
}

}  // namespace

v1::SweepSpec WithDefaults(const v1::SweepSpec& spec) {
  v1::SweepSpec out = spec;
  if (out.repetitions() == 0) out.set_repetitions(1);
  if (out.telemetry_hz() == 0) out.set_telemetry_hz(10);
  if (out.timeout_s() == 0) out.set_timeout_s(600);
  if (out.seed() == 0) out.set_seed(1);
  if (out.tasks().empty()) {
    // train, unless every workload entry names its own task
    // (resnet50/imagenet:infer implies infer).
    bool unsuffixed = out.workloads().empty();
    for (const WorkloadPair& p : WorkloadPairs(out)) {
      unsuffixed |= p.task == v1::TASK_UNSPECIFIED;
    }
    if (unsuffixed) out.add_tasks(v1::TASK_TRAIN);
  }
  if (out.runtimes().empty()) out.add_runtimes(v1::RUNTIME_NATIVE);
  if (out.loader_workers().empty()) out.add_loader_workers(0);
  if (out.power_modes().empty()) out.add_power_modes();
  if (out.tenants().empty()) out.add_tenants(1);
  if (out.prefetch_depths().empty()) out.add_prefetch_depths(0);
  if (out.page_cache().empty()) out.add_page_cache(v1::PAGE_CACHE_KEEP);
  if (out.has_settle() && out.settle().temp_band_c() > 0 &&
      out.settle().max_wait_s() == 0) {
    out.mutable_settle()->set_max_wait_s(kDefaultSettleMaxWaitS);
  }
  bool container = false;
  for (int r : out.runtimes()) {
    container |= RunsInContainer(static_cast<v1::Runtime>(r));
  }
  if (out.container_image().empty() && container) {
    out.set_container_image(kDefaultContainerImage);
  }
  if (HasVmRuntime(out)) {
    if (out.vm_memory_mib().empty() && out.vm().memory_mib() == 0) {
      out.mutable_vm()->set_memory_mib(kDefaultVmMemoryMib);
    }
    for (int i = 0; i < out.vm_memory_mib_size(); ++i) {
      if (out.vm_memory_mib(i) == 0) {
        out.set_vm_memory_mib(i, kDefaultVmMemoryMib);
      }
    }
  }
  return out;
}

absl::Status ValidateSweep(const v1::SweepSpec& spec,
                           const ValidationContext& ctx,
                           std::vector<std::string>* warnings) {
  Problems problems;
  std::vector<std::string> notes;
  if (spec.name().empty()) problems.push_back("name: must not be empty");
  CheckNames("device_classes", "device class", spec.device_classes(),
             ctx.device_classes.Names(), &problems);
  std::vector<std::string> advertised;
  for (const v1::DeviceStatus& d : ctx.known_devices) {
    for (const std::string& name : d.capabilities().datasets()) {
      advertised.push_back(name);
    }
  }
  CheckWorkloads(spec, ctx.workloads.WithDatasets(advertised), &problems);
  CheckEnums(spec, &problems);
  CheckIntAxes(spec, &problems);
  CheckModelInputs(spec, &problems);
  if (spec.power_modes().empty()) {
    problems.push_back(
        "power_modes: at least one power mode is required ({} leaves the "
        "device as it is)");
  }
  CheckPowerModeClasses(spec, &problems);
  CheckPowerModes(spec, ctx, &problems, &notes);
  CheckRuntimeAvailability(spec, ctx, &problems);
  CheckScalars(spec, &problems);
  CheckSettle(spec, &problems);
  const DevicePlacement placement =
      ResolvePlacement(spec, ctx.known_devices, &problems);
  const int64_t runs = CountRuns(spec, placement);
  if (runs > ctx.max_runs) {
    problems.push_back(absl::StrCat("sweep: expands to ", runs,
                                    " runs, more than the limit of ",
                                    ctx.max_runs, " per sweep"));
  }
  CheckDevicesRegistered(spec, ctx, &notes);
  CheckWorkloadsServed(spec, ctx, &notes);
  if (warnings != nullptr) {
    for (std::string& n : notes) warnings->push_back(std::move(n));
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
}

}  // namespace powersweep
