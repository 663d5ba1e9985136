// Fleet::CancelRuns: a user stops runs of a sweep.
#include <string>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {

absl::StatusOr<int> Fleet::CancelRuns(int64_t sweep_id, int64_t run_id,
                                      const std::string& reason) {
  Impl& impl = *impl_;
  Outbox out;
  int cancelled = 0;
  absl::Status first_error;
  {
    absl::MutexLock lock(&impl.run_mu);
    PS_ASSIGN_OR_RETURN(std::vector<v1::RunStatus> runs,
                        impl.store->ListRuns(sweep_id));
    bool found = run_id == 0;
    const absl::Time now = impl.clock->Now();
    for (const v1::RunStatus& run : runs) {
      const int64_t id = run.spec().run_id();
      if (run_id != 0 && id != run_id) continue;
      found = true;
      // A failed run may still be re-queued; cancelling it means no retry,
      // but a failed run already ended: it stays failed.
      if (IsFinal(run.state())) continue;
      absl::Status st = impl.store->TransitionRun(id, v1::RUN_STATE_CANCELLED,
                                                  "", reason, now);
      if (!st.ok()) {
        // Keep going: the cancels already decided must still reach their
        // agents; the first error is returned after they are sent.
        if (first_error.ok()) first_error = st;
        continue;
      }
      ++cancelled;
      if (run.state() == v1::RUN_STATE_PENDING) continue;
      // Leased or running: the agent stops the workload (and removes its
      // container); it stays busy until it reports the run finished.
      std::optional<AgentEntry> entry = impl.registry.Get(run.device_id());
      if (!entry || entry->current_run_id != id) continue;
      Outgoing cancel{run.device_id(), entry->conn, {}};
      cancel.msg.mutable_cancel()->set_run_id(id);
      cancel.msg.mutable_cancel()->set_reason(reason);
      out.push_back(std::move(cancel));
      PS_LOG(INFO) << "cancelling run " << id << " on " << run.device_id()
                   << ": " << reason;
    }
    if (!found) {
      return absl::NotFoundError(
          absl::StrCat("run ", run_id, " is not in sweep ", sweep_id));
    }
  }
  impl.Flush(std::move(out));
  if (!first_error.ok()) return first_error;
  return cancelled;
}

}  // namespace powersweep
