#include "controller/modeling/model_selector.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"
#include "controller/modeling/model_text.h"

namespace powersweep::modeling {
namespace {

// Later fit first: fitted_unix_ms, then model_id.
bool Later(const v1::WorkloadModel& a, const v1::WorkloadModel& b) {
  return std::make_tuple(a.fitted_unix_ms(), a.model_id()) >
         std::make_tuple(b.fitted_unix_ms(), b.model_id());
}

int Tenants(int t) { return t < 1 ? 1 : t; }

}  // namespace

bool Matches(const v1::WorkloadModel& m, const v1::ModelSelector& s) {
  if (!s.device_class().empty() && s.device_class() != m.device_class()) {
    return false;
  }
  if (!s.model().empty() && s.model() != m.model()) return false;
  if (!s.dataset().empty() && s.dataset() != m.dataset()) return false;
  if (s.task() != v1::TASK_UNSPECIFIED && s.task() != m.task()) return false;
  if (s.batch_size() != 0 && s.batch_size() != m.batch_size()) return false;
  if (s.has_loader_workers() && s.loader_workers() != m.loader_workers()) {
    return false;
  }
  if (s.runtime() != v1::RUNTIME_UNSPECIFIED && s.runtime() != m.runtime()) {
    return false;
  }
  if (s.tenants() != 0 && Tenants(s.tenants()) != Tenants(m.tenants())) {
    return false;
  }
  if (s.sweep_id() != 0 && s.sweep_id() != m.sweep_id() &&
      std::find(m.sweep_ids().begin(), m.sweep_ids().end(), s.sweep_id()) ==
          m.sweep_ids().end()) {
    return false;
  }
  // Per-device models only when their device is asked for, and then only.
  if (s.device_id() != m.device_id()) return false;
  return true;
}

std::string SelectorText(const v1::ModelSelector& s) {
  std::vector<std::string> parts;
  if (s.model_id() != 0) parts.push_back(absl::StrCat("model ", s.model_id()));
  if (!s.device_class().empty()) {
    parts.push_back(absl::StrCat("device_class=", s.device_class()));
  }
  if (!s.model().empty()) parts.push_back(absl::StrCat("model=", s.model()));
  if (!s.dataset().empty()) {
    parts.push_back(absl::StrCat("dataset=", s.dataset()));
  }
  if (s.task() != v1::TASK_UNSPECIFIED) {
    parts.push_back(absl::StrCat("task=", TaskText(s.task())));
  }
  if (s.batch_size() != 0) {
    parts.push_back(absl::StrCat("batch_size=", s.batch_size()));
  }
  if (s.has_loader_workers()) {
    parts.push_back(absl::StrCat("loader_workers=", s.loader_workers()));
  }
  if (s.runtime() != v1::RUNTIME_UNSPECIFIED) {
    parts.push_back(absl::StrCat("runtime=", RuntimeText(s.runtime())));
  }
  if (s.tenants() != 0) parts.push_back(absl::StrCat("tenants=", s.tenants()));
  if (s.sweep_id() != 0) parts.push_back(absl::StrCat("sweep=", s.sweep_id()));
  if (!s.device_id().empty()) {
    parts.push_back(absl::StrCat("device=", s.device_id()));
  }
  return parts.empty() ? "any model" : absl::StrJoin(parts, " ");
}

absl::StatusOr<v1::WorkloadModel> SelectModel(
    const std::vector<v1::WorkloadModel>& models, const v1::ModelSelector& s) {
  if (s.model_id() != 0) {
    for (const v1::WorkloadModel& m : models) {
      if (m.model_id() != s.model_id()) continue;
      if (!Matches(m, s)) {
        return absl::InvalidArgumentError(
            absl::StrCat("model ", m.model_id(), " is ", WorkloadLabel(m),
                         ", which does not match ", SelectorText(s)));
      }
      return m;
    }
    return absl::NotFoundError(absl::StrCat(
        "model ", s.model_id(),
        " not found (`powersweep models` lists the stored models)"));
  }
  // The latest fit of each matching workload, by label.
  std::map<std::string, const v1::WorkloadModel*> latest;
  for (const v1::WorkloadModel& m : models) {
    if (!Matches(m, s)) continue;
    const v1::WorkloadModel*& slot = latest[WorkloadLabel(m)];
    if (slot == nullptr || Later(m, *slot)) slot = &m;
  }
  if (latest.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no fitted model matches ", SelectorText(s),
        " (`powersweep models` lists the stored models; `powersweep fit "
        "--sweep ID` fits the runs of a sweep)"));
  }
  if (latest.size() > 1) {
    std::vector<std::string> lines;
    for (const auto& [label, m] : latest) {
      lines.push_back(absl::StrCat("model ", m->model_id(), ": ", label));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        SelectorText(s), " matches models of ", latest.size(),
        " workloads; name one (e.g. --batch-size, --task, --model-id):\n  ",
        absl::StrJoin(lines, "\n  ")));
  }
  return *latest.begin()->second;
}

}  // namespace powersweep::modeling
