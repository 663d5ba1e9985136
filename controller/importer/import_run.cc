#include "controller/importer/import_run.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "storage/record_aggregates.h"

namespace powersweep {

absl::StatusOr<TelemetryImport> TelemetryImport::Begin(
    Store* store, const v1::DeviceIdentity& device, const std::string& source,
    absl::Time now) {
  if (device.device_id().empty() || device.device_class().empty()) {
    return absl::InvalidArgumentError(
        "device_id: an imported run needs a registered device (id and class)");
  }
  v1::SweepSpec spec;
  spec.set_name(absl::StrCat("import: ", source));
  spec.add_device_classes(device.device_class());
  spec.set_repetitions(1);
  v1::RunSpec run;
  run.set_device_class(device.device_class());
  run.set_attempt(1);
  PS_ASSIGN_OR_RETURN(int64_t sweep_id, store->CreateSweep(spec, {run}, now));
  PS_ASSIGN_OR_RETURN(std::vector<v1::RunStatus> runs,
                      store->ListRuns(sweep_id));
  if (runs.size() != 1) {
    return absl::InternalError(absl::StrCat("import sweep ", sweep_id, " has ",
                                            runs.size(), " runs, expected 1"));
  }
  const int64_t run_id = runs.front().spec().run_id();
  for (v1::RunState to : {v1::RUN_STATE_LEASED, v1::RUN_STATE_RUNNING}) {
    PS_RETURN_IF_ERROR(
        store->TransitionRun(run_id, to, device.device_id(), "", now));
  }
  return TelemetryImport(store, sweep_id, run_id);
}

absl::Status TelemetryImport::Add(
    const std::vector<v1::TelemetrySample>& samples) {
  if (samples.empty()) return absl::OkStatus();
  v1::DataBatch batch;
  batch.set_run_id(run_id_);
  batch.set_seq(++seq_);
  for (const v1::TelemetrySample& s : samples) {
    *batch.add_telemetry() = s;
    last_t_s_ = std::max(last_t_s_, s.t_s());
    if (s.power_mw() > 0) {
      readings_.push_back({s.t_s(), s.power_mw(), s.power_provenance()});
    }
  }
  PS_RETURN_IF_ERROR(store_->IngestBatch(batch).status());
  samples_ += static_cast<int64_t>(samples.size());
  return absl::OkStatus();
}

absl::StatusOr<v1::ImportTelemetryResponse> TelemetryImport::Finish(
    absl::Time now) {
  v1::RunResult result;
  result.set_run_id(run_id_);
  result.set_ok(true);
  result.set_duration_s(last_t_s_);
  // The same integral the run summary computes from stored samples
  // (storage/record_aggregates.h), kept in run_results like an agent's.
  std::stable_sort(readings_.begin(), readings_.end(),
                   [](const Reading& a, const Reading& b) {
                     return a.t_s < b.t_s;
                   });
  RecordAggregator agg;
  for (const Reading& r : readings_) {
    agg.AddSample(r.t_s, 0, 0);  // the aggregator integrates sampled runs
    agg.AddPowerReading(r.t_s, r.power_mw, r.provenance);
  }
  const RecordAggregates energy = agg.Finish();
  if (energy.summary.energy_j() > 0) {
    result.set_energy_j(energy.summary.energy_j());
    result.set_energy_provenance(energy.summary.energy_provenance());
    result.set_energy_span_s(energy.power_span_s);
  }
  PS_RETURN_IF_ERROR(store_->FinishRun(result, v1::RUN_STATE_DONE, "", now));
  v1::ImportTelemetryResponse resp;
  resp.set_sweep_id(sweep_id_);
  resp.set_run_id(run_id_);
  resp.set_samples(samples_);
  return resp;
}

void TelemetryImport::Abort(const std::string& reason, absl::Time now) {
  (void)store_->TransitionRun(run_id_, v1::RUN_STATE_FAILED, "",
                              absl::StrCat("import failed: ", reason), now);
}

absl::StatusOr<v1::ImportTelemetryResponse> ImportTelemetryChunks(
    Store* store, const std::vector<v1::DeviceStatus>& devices,
    const std::function<bool(v1::ImportTelemetryChunk*)>& next, Clock* clock,
    int64_t max_samples) {
  v1::ImportTelemetryChunk chunk;
  if (!next(&chunk)) {
    return absl::InvalidArgumentError("import: the stream carried no chunk");
  }
  const v1::DeviceIdentity* device = nullptr;
  for (const v1::DeviceStatus& d : devices) {
    if (d.identity().device_id() == chunk.device_id()) device = &d.identity();
  }
  if (device == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "device_id: unknown device '", chunk.device_id(),
        "' (see `powersweep devices` for the registered ones)"));
  }
  std::string source = chunk.source().empty() ? "telemetry" : chunk.source();
  if (chunk.started_unix_ms() > 0) {
    absl::StrAppend(&source, " from ",
                    absl::FormatTime("%Y-%m-%dT%H:%M:%SZ",
                                     absl::FromUnixMillis(chunk.started_unix_ms()),
                                     absl::UTCTimeZone()));
  }
  // Every chunk is read (and counted) before the first write, so a stream
  // over the limit stores nothing.
  std::vector<std::vector<v1::TelemetrySample>> batches;
  int64_t total = 0;
  do {
    total += chunk.samples_size();
    if (total > max_samples) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "samples: the import has more than ", max_samples,
          " samples, the controller's --max_import_samples; nothing was "
          "stored (split the log, or raise the limit)"));
    }
    batches.emplace_back(chunk.samples().begin(), chunk.samples().end());
    chunk.Clear();
  } while (next(&chunk));

  PS_ASSIGN_OR_RETURN(
      TelemetryImport imp,
      TelemetryImport::Begin(store, *device, source, clock->Now()));
  for (const std::vector<v1::TelemetrySample>& samples : batches) {
    absl::Status st = imp.Add(samples);
    if (!st.ok()) {
      imp.Abort(std::string(st.message()), clock->Now());
      return st;
    }
  }
  absl::StatusOr<v1::ImportTelemetryResponse> done = imp.Finish(clock->Now());
  if (!done.ok()) imp.Abort(std::string(done.status().message()), clock->Now());
  return done;
}

}  // namespace powersweep
