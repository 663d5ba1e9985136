#include "controller/modeling/model_text.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/enum_text.h"

namespace powersweep::modeling {

std::string RunIdsText(const v1::WorkloadModel& m) {
  std::vector<int64_t> ids(m.run_ids().begin(), m.run_ids().end());
  std::sort(ids.begin(), ids.end());
  if (ids.empty()) return "no runs";
  if (ids.size() == 1) return absl::StrCat("run ", ids[0]);
  if (ids.back() - ids.front() + 1 == static_cast<int64_t>(ids.size())) {
    return absl::StrCat("runs ", ids.front(), "-", ids.back());
  }
  constexpr size_t kListed = 6;
  std::vector<int64_t> shown(ids.begin(),
                             ids.begin() + std::min(ids.size(), kListed));
  std::string s = absl::StrCat("runs ", absl::StrJoin(shown, ", "));
  if (ids.size() > kListed)
    absl::StrAppend(&s, ", ... (", ids.size(), " runs)");
  return s;
}

std::string Basis(const v1::WorkloadModel& m) {
  std::string forms = absl::StrCat("time ", m.time_model().form());
  absl::StrAppend(&forms,
                  m.has_energy_model()
                      ? absl::StrCat(", energy ", m.energy_model().form())
                      : ", no energy model");
  return absl::StrCat("predictions of model ", m.model_id(), " (",
                      WorkloadLabel(m), "; ", forms, "), fitted ",
                      absl::FormatTime("%Y-%m-%d %H:%M:%S UTC",
                                       absl::FromUnixMillis(m.fitted_unix_ms()),
                                       absl::UTCTimeZone()),
                      " on ", m.run_ids_size(), " runs of ", SweepsText(m),
                      " (", RunIdsText(m), ") at ", m.measured_size(),
                      " modes; data: ", m.data_provenance(), "; ",
                      m.epoch().text());
}

}  // namespace powersweep::modeling
