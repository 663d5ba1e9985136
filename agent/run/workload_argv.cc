// BuildWorkloadArgv (declared in agent/run/run_executor.h).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/run/run_executor.h"
#include "common/enum_text.h"
#include "common/kernel_names.h"
#include "common/kernel_shape.h"

namespace powersweep {

absl::StatusOr<std::vector<std::string>> BuildWorkloadArgv(
    const std::string& workload_bin, const Catalog& catalog,
    const v1::RunSpec& spec, int run_cpus) {
  const v1::WorkloadSpec& w = spec.workload();
  if (spec.runtime() == v1::RUNTIME_CONTAINER && !catalog.containers) {
    return absl::InvalidArgumentError(
        "runtime: container runs are not available on this agent (no "
        "container engine; start it with --container_images and a running "
        "Docker engine)");
  }
  if (spec.runtime() == v1::RUNTIME_VM && !catalog.vms) {
    return absl::InvalidArgumentError(absl::StrCat(
        "runtime: vm runs are not available on this agent",
        catalog.vm_accel_reason.empty()
            ? ""
            : absl::StrCat(" (", catalog.vm_accel_reason, ")")));
  }
  if (spec.runtime() == v1::RUNTIME_CONTAINER_IN_VM &&
      !(catalog.vms && catalog.containers)) {
    std::vector<std::string> missing;
    if (!catalog.vms) {
      missing.push_back(absl::StrCat("vm runs (", catalog.vm_accel_reason, ")"));
    }
    if (!catalog.containers) {
      missing.push_back(
          "a container engine (--container_images and a running Docker "
          "engine)");
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "runtime: container_in_vm runs are not available on this agent (it "
        "lacks ", absl::StrJoin(missing, " and "), ")"));
  }
  if (spec.runtime() != v1::RUNTIME_NATIVE &&
      spec.runtime() != v1::RUNTIME_UNSPECIFIED &&
      spec.runtime() != v1::RUNTIME_CONTAINER &&
      spec.runtime() != v1::RUNTIME_VM &&
      spec.runtime() != v1::RUNTIME_CONTAINER_IN_VM) {
    return absl::InvalidArgumentError(absl::StrCat(
        "runtime: unknown runtime ", static_cast<int>(spec.runtime())));
  }
  if (catalog.models.count(w.model()) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.model: \"", w.model(), "\" is not in this agent's catalog [",
        absl::StrJoin(catalog.models, ","), "]"));
  }
  // A kernel's dataset is its shape: checked here, passed as
  // --kernel-shape; no directory.
  const bool kernel = IsKernelName(w.model());
  if (kernel) {
    absl::StatusOr<KernelShape> shape = ParseKernelShape(w.model(), w.dataset());
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("workload.dataset: ", shape.status().message()));
    }
  }
  auto ds = catalog.datasets.find(w.dataset());
  if (!kernel && ds == catalog.datasets.end()) {
    std::vector<std::string> names;
    for (const auto& [name, path] : catalog.datasets) names.push_back(name);
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.dataset: \"", w.dataset(),
        "\" is not in this agent's catalog [", absl::StrJoin(names, ","),
        "]"));
  }
  if (w.task() != v1::TASK_TRAIN && w.task() != v1::TASK_INFER) {
    return absl::InvalidArgumentError("workload.task: must be train or infer");
  }
  const std::string task = TaskText(w.task());
  if (w.batch_size() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.batch_size: must be > 0, got ", w.batch_size()));
  }
  if (w.loader_workers() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.loader_workers: must be >= 0, got ", w.loader_workers()));
  }
  if (w.threads() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.threads: must be >= 0, got ", w.threads()));
  }
  if (w.epochs() < 0 || w.minibatches() < 0 || w.duration_s() < 0 ||
      (w.epochs() == 0 && w.minibatches() == 0 && w.duration_s() == 0)) {
    return absl::InvalidArgumentError(
        "workload: needs a positive stop condition (epochs, minibatches or "
        "duration_s)");
  }
  std::vector<std::string> argv = {workload_bin, "run", "--model", w.model()};
  if (kernel) {
    // One timed iteration per record: no data set, batch or loader.
    if (w.epochs() > 0) {
      return absl::InvalidArgumentError(
          "workload.epochs: a kernel run has no data set, so no epochs; use "
          "minibatches (timed iterations) or duration_s");
    }
    argv.insert(argv.end(), {"--kernel-shape", w.dataset(), "--task", task});
  } else {
    argv.insert(argv.end(),
                {"--dataset-path", ds->second, "--task", task, "--batch-size",
                 absl::StrCat(w.batch_size()), "--workers",
                 absl::StrCat(w.loader_workers())});
  }
  if (w.epochs() > 0) {
    argv.insert(argv.end(), {"--epochs", absl::StrCat(w.epochs())});
  }
  if (w.minibatches() > 0) {
    argv.insert(argv.end(), {"--minibatches", absl::StrCat(w.minibatches())});
  }
  if (w.duration_s() > 0) {
    argv.insert(argv.end(), {"--duration-s", absl::StrCat(w.duration_s())});
  }
  if (w.prefetch_depth() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.prefetch_depth: must be >= 0, got ", w.prefetch_depth()));
  }
  if (w.input_size() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.input_size: must be >= 0, got ", w.input_size()));
  }
  // Loader and data-set knobs do not apply to a kernel (it reads nothing).
  if (!kernel) {
    if (w.prefetch_depth() > 0) {
      argv.insert(argv.end(),
                  {"--prefetch-depth", absl::StrCat(w.prefetch_depth())});
    }
    if (w.page_cache() == v1::PAGE_CACHE_DROP) {
      argv.insert(argv.end(), {"--page-cache", "drop"});
    }
    if (w.preload()) argv.push_back("--preload");
    if (w.input_size() > 0) {
      argv.insert(argv.end(), {"--input-size", absl::StrCat(w.input_size())});
    }
    // Warm-up minibatches (-1 none, 0 the workload's default) and cuDNN's
    // algorithm search: CUDA timing knobs of model runs.
    if (w.warmup_minibatches() != 0) {
      argv.insert(argv.end(), {"--warmup-minibatches",
                               absl::StrCat(w.warmup_minibatches())});
    }
    if (w.cudnn_benchmark()) argv.push_back("--cudnn-benchmark");
  } else if (w.warmup_minibatches() != 0) {
    return absl::InvalidArgumentError(
        "workload.warmup_minibatches: a kernel run has its own untimed "
        "warm-up iterations");
  }
  if (w.seq_len() < 0 || w.vocab() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        w.seq_len() < 0 ? "workload.seq_len" : "workload.vocab",
        ": must be >= 0, got ", std::min(w.seq_len(), w.vocab())));
  }
  if (w.seq_len() > 0) {
    argv.insert(argv.end(), {"--seq-len", absl::StrCat(w.seq_len())});
  }
  if (w.vocab() > 0) {
    argv.insert(argv.end(), {"--vocab", absl::StrCat(w.vocab())});
  }
  int threads = w.threads() > 0 ? w.threads() : run_cpus;
  if (threads <= 0) {
    return absl::InvalidArgumentError(
        "workload.threads: 0 (follow the run's CPUs), but the run has no "
        "CPU");
  }
  argv.insert(argv.end(), {"--seed", absl::StrCat(w.seed()), "--threads",
                           absl::StrCat(threads), "--records-fd",
                           absl::StrCat(kRecordsFd)});
  return argv;
}

}  // namespace powersweep
