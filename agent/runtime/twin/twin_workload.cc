#include "agent/runtime/twin/twin_workload.h"

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/enum_text.h"
#include "common/kernel_names.h"
#include "common/kernel_shape.h"

namespace powersweep {
namespace {

constexpr char kTwinDatasetPrefix[] = "twin:";

absl::Status Bad(const std::string& flag, const std::string& value) {
  return absl::InvalidArgumentError(
      absl::StrCat("twin workload: bad value \"", value, "\" for ", flag));
}

bool IsFlag(const std::string& arg) { return absl::StartsWith(arg, "--"); }

}  // namespace

absl::StatusOr<TwinWorkload> ParseTwinWorkload(
    const std::vector<std::string>& argv) {
  if (argv.size() < 2 || argv[1] != "run") {
    return absl::InvalidArgumentError(
        "twin workload: expected \"BIN run --flag value ...\"");
  }
  std::map<std::string, std::string> flags;
  for (size_t i = 2; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (!IsFlag(arg)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "twin workload: expected \"--flag value\" at \"", arg, "\""));
    }
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      flags[arg.substr(0, eq)] = arg.substr(eq + 1);
    } else if (i + 1 < argv.size() && !IsFlag(argv[i + 1])) {
      flags[arg] = argv[++i];
    } else {
      flags[arg] = "true";  // a boolean flag
    }
  }
  TwinWorkload w;
  auto get = [&flags](const std::string& f) -> std::string {
    auto it = flags.find(f);
    return it == flags.end() ? "" : it->second;
  };
  w.model = get("--model");
  if (w.model.empty()) return Bad("--model", "");
  const std::string task = get("--task");
  const std::optional<v1::Task> parsed = ParseWorkloadTask(task);
  if (!parsed.has_value()) return Bad("--task", task);
  w.train = *parsed == v1::TASK_TRAIN;
  struct IntFlag {
    const char* name;
    int* out;
  };
  for (IntFlag f : {IntFlag{"--batch-size", &w.batch_size},
                    IntFlag{"--workers", &w.workers},
                    IntFlag{"--epochs", &w.epochs},
                    IntFlag{"--threads", &w.threads},
                    IntFlag{"--classes", &w.classes},
                    IntFlag{"--input-size", &w.input_size},
                    IntFlag{"--seq-len", &w.seq_len},
                    IntFlag{"--vocab", &w.vocab}}) {
    const std::string v = get(f.name);
    if (!v.empty() && (!absl::SimpleAtoi(v, f.out) || *f.out < 0)) {
      return Bad(f.name, v);
    }
  }
  const bool kernel = IsKernelName(w.model);
  if (kernel) {
    w.kernel_shape = get("--kernel-shape");
    absl::StatusOr<KernelShape> shape = ParseKernelShape(w.model, w.kernel_shape);
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("twin workload: --kernel-shape: ", shape.status().message()));
    }
    w.batch_size = 1;  // one iteration per record
  }
  if (w.batch_size <= 0) return Bad("--batch-size", get("--batch-size"));
  std::string v = get("--minibatches");
  if (!v.empty() && (!absl::SimpleAtoi(v, &w.minibatches) || w.minibatches < 0)) {
    return Bad("--minibatches", v);
  }
  v = get("--duration-s");
  if (!v.empty() && (!absl::SimpleAtod(v, &w.duration_s) || w.duration_s < 0)) {
    return Bad("--duration-s", v);
  }
  v = get("--seed");
  if (!v.empty() && !absl::SimpleAtoi(v, &w.seed)) return Bad("--seed", v);
  if (w.epochs == 0 && w.minibatches == 0 && w.duration_s == 0) {
    return absl::InvalidArgumentError(
        "twin workload: needs --epochs, --minibatches or --duration-s");
  }
  v = get("--preload-limit");
  if (!v.empty() &&
      (!absl::SimpleAtoi(v, &w.preload_limit) || w.preload_limit < 0)) {
    return Bad("--preload-limit", v);
  }
  v = get("--page-cache");
  if (!v.empty() && v != "keep" && v != "drop") return Bad("--page-cache", v);
  w.drop_page_cache = v == "drop";
  v = get("--preload");
  if (!v.empty() && v != "true" && v != "false") return Bad("--preload", v);
  w.preload = v == "true";
  if (w.preload && w.train) {
    return absl::InvalidArgumentError(
        "twin workload: --preload applies to --task infer only");
  }
  if (kernel) return w;
  w.dataset = std::string(
      absl::StripPrefix(get("--dataset-path"), kTwinDatasetPrefix));
  if (w.dataset.empty()) return Bad("--dataset-path", get("--dataset-path"));
  return w;
}

}  // namespace powersweep
