// Fleet::Rerun: a user re-queues the runs of a sweep that ended failed
// and/or cancelled. Each becomes PENDING as a new attempt (the store keeps
// every earlier attempt's data), then the fleet dispatches.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {

absl::StatusOr<v1::RerunResponse> Fleet::Rerun(int64_t sweep_id, bool failed,
                                               bool cancelled,
                                               double timeout_s) {
  if (!failed && !cancelled) failed = cancelled = true;
  if (timeout_s > 604800) {
    return absl::InvalidArgumentError(absl::StrCat(
        "timeout_s: must be at most 604800 (7 days, as in a sweep file), "
        "got ", timeout_s));
  }
  if (timeout_s < 0 || !std::isfinite(timeout_s)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "timeout_s: must be a positive number of seconds (0 keeps the runs' "
        "own), got ", timeout_s));
  }
  Impl& im = *impl_;
  Outbox out;
  v1::RerunResponse response;
  std::vector<std::string> errors;
  absl::StatusCode first_code = absl::StatusCode::kOk;
  {
    absl::MutexLock lock(&im.run_mu);
    PS_RETURN_IF_ERROR(im.store->GetSweepSpec(sweep_id).status());
    PS_ASSIGN_OR_RETURN(std::vector<v1::RunStatus> runs,
                        im.store->ListRuns(sweep_id));
    const absl::Time now = im.clock->Now();
    for (const v1::RunStatus& run : runs) {
      const v1::RunState state = run.state();
      if (!(failed && state == v1::RUN_STATE_FAILED) &&
          !(cancelled && state == v1::RUN_STATE_CANCELLED)) {
        continue;
      }
      const int64_t id = run.spec().run_id();
      // A run cancelled while running stays with its agent until the agent
      // reports it stopped; a new attempt must not race that report.
      std::optional<AgentEntry> holder = im.registry.Get(run.device_id());
      if (holder.has_value() && (holder->current_run_id == id ||
                                 holder->foreign_run_id == id)) {
        response.add_skipped(absl::StrCat(
            "run ", id, ": agent ", run.device_id(),
            " is still stopping it; rerun once it has stopped"));
        continue;
      }
      absl::Status st = im.store->TransitionRun(
          id, v1::RUN_STATE_PENDING, "",
          absl::StrCat("rerun by the user after it ended ",
                       StateText(state),
                       run.reason().empty() ? "" : ": ", run.reason()),
          now);
      // A new timeout before dispatch can lease the new attempt (run_mu
      // is held).
      if (st.ok() && timeout_s > 0) st = im.store->SetRunTimeout(id, timeout_s);
      if (!st.ok()) {
        // Keep going: one run the store refuses must not keep the others
        // from being re-queued.
        if (first_code == absl::StatusCode::kOk) first_code = st.code();
        errors.push_back(absl::StrCat("run ", id, ": ", st.message()));
        continue;
      }
      response.set_requeued(response.requeued() + 1);
      PS_LOG(INFO) << "run " << id << " (sweep " << sweep_id << ", ended "
                   << StateText(state) << ") re-queued as attempt "
                   << run.spec().attempt() + 1 << " by the user";
    }
    if (response.requeued() > 0) im.DispatchLocked(&out);
  }
  im.Flush(std::move(out));
  if (!errors.empty()) {
    return absl::Status(
        first_code,
        absl::StrCat(response.requeued(), " runs of sweep ", sweep_id,
                     " re-queued; ", errors.size(), " could not be: ",
                     absl::StrJoin(errors, "; ")));
  }
  return response;
}

}  // namespace powersweep
