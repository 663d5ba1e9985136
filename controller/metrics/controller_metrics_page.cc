#include "controller/metrics/controller_metrics_page.h"

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/metrics/exposition.h"

namespace powersweep {
namespace {

double Load(const std::atomic<int64_t>& counter) {
  return static_cast<double>(counter.load(std::memory_order_relaxed));
}

void RenderStore(Store* store, ExpositionWriter* w) {
  absl::StatusOr<std::vector<v1::SweepStatus>> sweeps = store->ListSweeps();
  w->Begin("powersweep_store_up", MetricType::kGauge,
           "1 when this scrape could read the database.");
  w->Sample(sweeps.ok() ? 1 : 0);
  if (!sweeps.ok()) return;
  int64_t pending = 0, active = 0, done = 0, failed = 0, cancelled = 0;
  int64_t finished = 0;
  for (const v1::SweepStatus& s : *sweeps) {
    pending += s.pending();
    active += s.active();
    done += s.done();
    failed += s.failed();
    cancelled += s.cancelled();
    finished += s.finished() ? 1 : 0;
  }
  w->Begin("powersweep_runs", MetricType::kGauge,
           "Runs in the database by state (active: leased to an agent or "
           "running), over every sweep.");
  for (const auto& [state, n] :
       {std::pair<const char*, int64_t>{"pending", pending},
        {"active", active},
        {"done", done},
        {"failed", failed},
        {"cancelled", cancelled}}) {
    w->Sample({{"state", state}}, static_cast<double>(n));
  }
  w->Begin("powersweep_sweeps", MetricType::kGauge,
           "Sweeps in the database: finished (no pending or active runs) or "
           "not.");
  w->Sample({{"state", "finished"}}, static_cast<double>(finished));
  w->Sample(
      {{"state", "unfinished"}},
      static_cast<double>(static_cast<int64_t>(sweeps->size()) - finished));
}

void RenderAgents(const Fleet& fleet, ExpositionWriter* w) {
  const AgentCounts agents = fleet.CountAgents();
  w->Begin("powersweep_agents_connected", MetricType::kGauge,
           "Agents with a registered session.");
  w->Sample(static_cast<double>(agents.connected));
  w->Begin("powersweep_agents_healthy", MetricType::kGauge,
           "Connected agents whose latest health check passed (or that "
           "reported none yet).");
  w->Sample(static_cast<double>(agents.healthy));
  w->Begin("powersweep_agents_drained", MetricType::kGauge,
           "Connected agents drained by an operator (no new runs).");
  w->Sample(static_cast<double>(agents.drained));
  w->Begin("powersweep_agents_busy", MetricType::kGauge,
           "Connected agents holding a run (leased or running).");
  w->Sample(static_cast<double>(agents.busy));
}

void RenderCounters(const FleetCounters& c, ExpositionWriter* w) {
  w->Begin("powersweep_ingest_batches_total", MetricType::kCounter,
           "Data batches from agents by outcome: stored; duplicate (already "
           "stored, acknowledged again); dropped (of a run or attempt the "
           "agent no longer holds); failed (the database refused it; not "
           "acknowledged, the agent sends it again); rejected (a batch or "
           "result with values that cannot be stored: the run failed).");
  w->Sample({{"outcome", "stored"}}, Load(c.batches_stored));
  w->Sample({{"outcome", "duplicate"}}, Load(c.batches_duplicate));
  w->Sample({{"outcome", "dropped"}}, Load(c.batches_dropped));
  w->Sample({{"outcome", "failed"}}, Load(c.batches_failed));
  w->Sample({{"outcome", "rejected"}}, Load(c.batches_rejected));
  w->Begin("powersweep_ingest_rows_total", MetricType::kCounter,
           "Rows stored from agents' batches: minibatch records and "
           "telemetry samples.");
  w->Sample({{"kind", "minibatch"}}, Load(c.minibatch_rows));
  w->Sample({{"kind", "telemetry"}}, Load(c.telemetry_rows));
  w->Begin("powersweep_runs_leased_total", MetricType::kCounter,
           "Runs handed to agents (assignments sent).");
  w->Sample(Load(c.runs_leased));
  w->Begin("powersweep_dispatch_duration_seconds", MetricType::kHistogram,
           "Wall time of each dispatch pass that found idle agents: the "
           "pending-run queries and the leases.");
  w->Histogram({}, c.dispatch_seconds.Snapshot());
}

void RenderListener(const GuardedListener& listener, ExpositionWriter* w) {
  const GuardedListenerCounts c = listener.counts();
  w->Begin("powersweep_connections_total", MetricType::kCounter,
           "TCP connections that reached the controller's listener, by "
           "outcome: accepted (handed to gRPC); refused (closed at once, "
           "the descriptor ceiling was reached).");
  w->Sample({{"outcome", "accepted"}}, static_cast<double>(c.accepted));
  w->Sample({{"outcome", "refused"}}, static_cast<double>(c.refused));
  w->Begin("powersweep_accept_errors_total", MetricType::kCounter,
           "accept() failures of the listener (EMFILE, ENFILE, ENOBUFS...); "
           "each was recovered from, the listener goes on.");
  w->Sample(static_cast<double>(c.accept_errors));
  w->Begin("powersweep_open_descriptors", MetricType::kGauge,
           "Descriptors the controller held at its latest accepted "
           "connection.");
  w->Sample(static_cast<double>(c.open_descriptors));
  w->Begin("powersweep_descriptor_ceiling", MetricType::kGauge,
           "A connection that would take the controller above this many "
           "descriptors is refused (--max_connections and the open-files "
           "limit less 64).");
  w->Sample(static_cast<double>(c.ceiling));
}

}  // namespace

std::string RenderControllerMetrics(const ControllerMetricsSources& sources) {
  ExpositionWriter w;
  RenderAgents(*sources.fleet, &w);
  RenderStore(sources.store, &w);
  RenderCounters(sources.fleet->counters(), &w);
  if (sources.store_errors != nullptr) {
    const SqliteErrorCounts& e = *sources.store_errors;
    w.Begin("powersweep_store_errors_total", MetricType::kCounter,
            "Errors the database returned, by kind: busy (locked or busy "
            "past the 5 s timeout, full, cannot open), constraint (a write "
            "refused by a constraint: usually bad input), other (I/O, "
            "corruption).");
    w.Sample({{"kind", "busy"}}, Load(e.busy));
    w.Sample({{"kind", "constraint"}}, Load(e.constraint));
    w.Sample({{"kind", "other"}}, Load(e.other));
  }
  if (sources.listener != nullptr) RenderListener(*sources.listener, &w);
  return w.text();
}

}  // namespace powersweep
