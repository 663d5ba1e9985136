#include "controller/modeling/profiling_sweep.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"
#include "controller/modeling/model_proto.h"

namespace powersweep::modeling {
namespace {

// A double-quoted YAML scalar.
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out + "\"";
}

std::string ModeYaml(const v1::PowerMode& m) {
  std::vector<std::string> kv;
  if (!m.preset().empty()) kv.push_back("preset: " + Quoted(m.preset()));
  if (m.cpu_cores() != 0)
    kv.push_back(absl::StrCat("cpu_cores: ", m.cpu_cores()));
  if (m.cpu_freq_khz() != 0) {
    kv.push_back(absl::StrCat("cpu_freq_khz: ", m.cpu_freq_khz()));
  }
  if (m.gpu_freq_hz() != 0) {
    kv.push_back(absl::StrCat("gpu_freq_hz: ", m.gpu_freq_hz()));
  }
  if (m.mem_freq_hz() != 0) {
    kv.push_back(absl::StrCat("mem_freq_hz: ", m.mem_freq_hz()));
  }
  return absl::StrCat("{", absl::StrJoin(kv, ", "), "}");
}

}  // namespace

v1::PlanProfilingRequest WithPlanDefaults(const v1::PlanProfilingRequest& in) {
  v1::PlanProfilingRequest r = in;
  if (r.model().empty()) r.set_model("lenet5");
  if (r.dataset().empty()) r.set_dataset("fashion-mnist");
  if (r.task() == v1::TASK_UNSPECIFIED) r.set_task(v1::TASK_TRAIN);
  if (r.batch_size() == 0) r.set_batch_size(64);
  if (r.runtime() == v1::RUNTIME_UNSPECIFIED) r.set_runtime(v1::RUNTIME_NATIVE);
  if (r.minibatches() == 0) r.set_minibatches(kDefaultPlanMinibatches);
  if (r.repetitions() == 0) r.set_repetitions(1);
  if (r.name().empty()) {
    r.set_name(absl::StrCat(
        "plan-", r.device_class(), "-", r.model(), "-k", r.k(),
        r.after_sweep_id() != 0 ? absl::StrCat("-after", r.after_sweep_id())
                                : ""));
  }
  return r;
}

v1::SweepSpec ProfilingSweep(const v1::PlanProfilingRequest& in,
                             const std::vector<CustomMode>& modes) {
  const v1::PlanProfilingRequest r = WithPlanDefaults(in);
  v1::SweepSpec s;
  s.set_name(r.name());
  s.add_device_classes(r.device_class());
  s.add_models(r.model());
  s.add_datasets(r.dataset());
  s.add_tasks(r.task());
  s.add_batch_sizes(r.batch_size());
  s.add_loader_workers(r.loader_workers());
  s.add_runtimes(r.runtime());
  for (const CustomMode& m : modes) *s.add_power_modes() = ToPowerMode(m);
  s.set_repetitions(r.repetitions());
  s.set_minibatches(r.minibatches());
  s.set_seed(1);
  s.set_telemetry_hz(10);
  return s;
}

std::string SweepYaml(const v1::SweepSpec& s,
                      const std::vector<std::string>& comment) {
  std::string y;
  for (const std::string& line : comment) absl::StrAppend(&y, "# ", line, "\n");
  std::vector<std::string> tasks, runtimes;
  for (int t : s.tasks()) tasks.push_back(TaskText(static_cast<v1::Task>(t)));
  for (int r : s.runtimes()) {
    runtimes.push_back(RuntimeText(static_cast<v1::Runtime>(r)));
  }
  absl::StrAppend(&y, "name: ", Quoted(s.name()), "\n");
  absl::StrAppend(&y, "device_classes: [",
                  absl::StrJoin(s.device_classes(), ", "), "]\n");
  absl::StrAppend(&y, "models: [", absl::StrJoin(s.models(), ", "), "]\n");
  absl::StrAppend(&y, "datasets: [", absl::StrJoin(s.datasets(), ", "), "]\n");
  absl::StrAppend(&y, "tasks: [", absl::StrJoin(tasks, ", "), "]\n");
  absl::StrAppend(&y, "batch_sizes: [", absl::StrJoin(s.batch_sizes(), ", "),
                  "]\n");
  absl::StrAppend(&y, "loader_workers: [",
                  absl::StrJoin(s.loader_workers(), ", "), "]\n");
  absl::StrAppend(&y, "runtimes: [", absl::StrJoin(runtimes, ", "), "]\n");
  absl::StrAppend(&y, "power_modes:\n");
  for (const v1::PowerMode& m : s.power_modes()) {
    absl::StrAppend(&y, "  - ", ModeYaml(m), "\n");
  }
  absl::StrAppend(&y, "repetitions: ", s.repetitions(), "\n");
  if (s.epochs() != 0) absl::StrAppend(&y, "epochs: ", s.epochs(), "\n");
  if (s.minibatches() != 0) {
    absl::StrAppend(&y, "minibatches: ", s.minibatches(), "\n");
  }
  absl::StrAppend(&y, "seed: ", s.seed(), "\n");
  absl::StrAppend(&y, "telemetry_hz: ", s.telemetry_hz(), "\n");
  return y;
}

}  // namespace powersweep::modeling
