#include "controller/sweep/submitter.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "controller/sweep/expand.h"
#include "controller/sweep/gating_order.h"
#include "controller/sweep/problem_list.h"
#include "controller/sweep/validate.h"

namespace powersweep {

SweepSubmitter::SweepSubmitter(Store* store, Clock* clock, int64_t max_runs)
    : store_(store), clock_(clock), max_runs_(max_runs) {}

absl::StatusOr<v1::SubmitSweepResponse> SweepSubmitter::Submit(
    const v1::SweepSpec& spec,
    const std::vector<v1::DeviceStatus>& known_devices) {
  // The stored spec is the effective one (defaults filled), so what
  // GetSweepSpec returns is what the runs were expanded from.
  const v1::SweepSpec full =
      WithDefaults(WithClassesOfDevices(spec, known_devices));
  ValidationContext ctx;
  ctx.known_devices = known_devices;
  std::vector<std::string> warnings;
  absl::Status valid = ValidateSweep(full, ctx, &warnings);
  // Thousands of problems would not fit a gRPC status or a terminal.
  if (!valid.ok()) return LimitProblemLines(valid);
  // Counted without expanding, so a huge matrix costs no memory.
  const DevicePlacement placement =
      ResolvePlacement(full, known_devices, nullptr);
  const int64_t count = CountRuns(full, placement);
  if (count > max_runs_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the sweep expands to ", count, " runs, more than the controller's "
        "--max_sweep_runs of ", max_runs_, "; nothing was stored (split it "
        "into smaller sweeps)"));
  }

  std::vector<v1::RunSpec> runs = ExpandSweep(full, placement);
  const std::string grouped =
      GroupRunsByGpuGating(&runs, PowerCatalog::Default());
  if (!grouped.empty()) warnings.push_back(grouped);
  PS_ASSIGN_OR_RETURN(int64_t sweep_id,
                      store_->CreateSweep(full, runs, clock_->Now()));

  v1::SubmitSweepResponse response;
  response.set_sweep_id(sweep_id);
  response.set_run_count(static_cast<int32_t>(runs.size()));
  for (std::string& w : warnings) response.add_warnings(std::move(w));
  return response;
}

}  // namespace powersweep
