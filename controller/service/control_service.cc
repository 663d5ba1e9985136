#include "controller/service/control_service.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "common/power/mode_listing.h"
#include "controller/analysis/compare.h"
#include "controller/analysis/compare_table.h"
#include "controller/analysis/device_offsets.h"
#include "controller/analysis/sweep_summaries.h"
#include "controller/analysis/variability.h"
#include "controller/analysis/variability_proto.h"
#include "controller/importer/import_run.h"

namespace powersweep {

grpc::Status ControlService::Authorize(
    const grpc::ServerContext* context) const {
  if (options_.auth == nullptr) return grpc::Status::OK;
  absl::Status st = options_.auth->Check(*context);
  if (!st.ok()) {
    PS_LOG(WARNING) << "refused a Control call from " << context->peer()
                    << ": " << st.message();
  }
  return ToGrpcStatus(st);
}

grpc::Status ControlService::SubmitSweep(grpc::ServerContext* context,
                                         const v1::SubmitSweepRequest* request,
                                         v1::SubmitSweepResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto devices = fleet_->ListDevices();
  if (!devices.ok()) return ToGrpcStatus(devices.status());
  auto submitted = submitter_->Submit(request->spec(), *devices);
  if (!submitted.ok()) return ToGrpcStatus(submitted.status());
  *response = *submitted;
  PS_LOG(INFO) << "sweep " << response->sweep_id() << " ('"
               << request->spec().name() << "') submitted with "
               << response->run_count() << " runs";
  fleet_->Dispatch();
  return grpc::Status::OK;
}

grpc::Status ControlService::GetSweep(grpc::ServerContext* context,
                                      const v1::GetSweepRequest* request,
                                      v1::SweepStatus* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto status = store_->GetSweepStatus(request->sweep_id());
  if (!status.ok()) return ToGrpcStatus(status.status());
  *response = *status;
  FillWaiting({response});
  return grpc::Status::OK;
}

void ControlService::FillWaiting(const std::vector<v1::SweepStatus*>& sweeps) {
  bool any = false;
  for (const v1::SweepStatus* s : sweeps) any |= s->pending() > 0;
  if (!any) return;
  // Best effort: a status without the explanation beats no status.
  auto devices = fleet_->ListDevices();
  auto pending = store_->ListPendingRuns(kMaxPendingExplained);
  if (!devices.ok() || !pending.ok()) return;
  std::map<int64_t, std::vector<v1::RunSpec>> by_sweep;
  for (v1::RunSpec& r : *pending) by_sweep[r.sweep_id()].push_back(std::move(r));
  const absl::Time now = absl::Now();
  for (v1::SweepStatus* s : sweeps) {
    if (s->pending() == 0) continue;
    for (std::string& line :
         WaitingReasons(by_sweep[s->sweep_id()], *devices, now)) {
      s->add_waiting(std::move(line));
    }
  }
}

grpc::Status ControlService::ListSweeps(grpc::ServerContext* context,
                                        const v1::ListSweepsRequest*,
                                        v1::ListSweepsResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto sweeps = store_->ListSweeps();
  if (!sweeps.ok()) return ToGrpcStatus(sweeps.status());
  for (auto& s : *sweeps) *response->add_sweeps() = std::move(s);
  std::vector<v1::SweepStatus*> listed;
  for (v1::SweepStatus& s : *response->mutable_sweeps()) listed.push_back(&s);
  FillWaiting(listed);
  return grpc::Status::OK;
}

grpc::Status ControlService::ListDevices(grpc::ServerContext* context,
                                         const v1::ListDevicesRequest*,
                                         v1::ListDevicesResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto devices = fleet_->ListDevices();
  if (!devices.ok()) return ToGrpcStatus(devices.status());
  for (auto& d : *devices) *response->add_devices() = std::move(d);
  return grpc::Status::OK;
}

grpc::Status ControlService::ListRuns(grpc::ServerContext* context,
                                      const v1::ListRunsRequest* request,
                                      v1::ListRunsResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  // Summaries from the store's per-run aggregates (sweep_summaries.h).
  auto runs = ListRunsWithSummaries(store_, request->sweep_id());
  if (!runs.ok()) return ToGrpcStatus(runs.status());
  for (auto& run : *runs) *response->add_runs() = std::move(run);
  return grpc::Status::OK;
}

grpc::Status ControlService::Export(grpc::ServerContext* context,
                                    const v1::ExportRequest* request,
                                    grpc::ServerWriter<v1::ExportChunk>* writer) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto spec = store_->GetSweepSpec(request->sweep_id());
  if (!spec.ok()) return ToGrpcStatus(spec.status());
  for (const char* table : {"runs", "minibatches", "telemetry", "traces"}) {
    bool write_ok = true;
    absl::Status st = store_->ExportCsv(
        request->sweep_id(), table, [&](const std::string& csv) {
          if (!write_ok) return;
          v1::ExportChunk chunk;
          chunk.set_table(table);
          chunk.set_csv(csv);
          write_ok = writer->Write(chunk);
        });
    if (!st.ok()) return ToGrpcStatus(st);
    if (!write_ok) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "client went away");
    }
  }
  return grpc::Status::OK;
}

grpc::Status ControlService::ListModes(grpc::ServerContext* context,
                                       const v1::ListModesRequest* request,
                                       v1::ListModesResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto devices = fleet_->ListDevices();
  if (!devices.ok()) return ToGrpcStatus(devices.status());
  for (const v1::DeviceStatus& d : *devices) {
    if (d.identity().device_id() != request->device_id()) continue;
    auto modes = ListModesFor(d, power_catalog_);
    if (!modes.ok()) return ToGrpcStatus(modes.status());
    *response = *std::move(modes);
    return grpc::Status::OK;
  }
  // A class name: its catalog, without a device.
  if (power_catalog_.Find(request->device_id()) != nullptr) {
    v1::DeviceStatus cls;
    cls.mutable_identity()->set_device_class(request->device_id());
    auto modes = ListModesFor(cls, power_catalog_);
    if (!modes.ok()) return ToGrpcStatus(modes.status());
    *response = *std::move(modes);
    return grpc::Status::OK;
  }
  return ToGrpcStatus(absl::NotFoundError(
      "unknown device or class '" + request->device_id() +
      "' (see `powersweep devices` for the registered devices; classes: " +
      absl::StrJoin(power_catalog_.ClassNames(), ", ") + ")"));
}

grpc::Status ControlService::Compare(grpc::ServerContext* context,
                                     const v1::CompareRequest* request,
                                     v1::CompareResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto spec = store_->GetSweepSpec(request->sweep_id());
  if (!spec.ok()) return ToGrpcStatus(spec.status());
  auto dimension = ParseCompareDimension(
      request->by().empty() ? "runtime" : request->by(),
      {request->devices().begin(), request->devices().end()},
      {request->sides().begin(), request->sides().end()});
  if (!dimension.ok()) return ToGrpcStatus(dimension.status());
  auto comparison = CompareSweep(store_, request->sweep_id(), *dimension);
  if (!comparison.ok()) return ToGrpcStatus(comparison.status());
  const ComparisonTable table = ToTable(*comparison);
  v1::Table* out = response->mutable_table();
  for (const std::string& h : table.header) out->add_header(h);
  for (bool n : table.numeric) out->add_numeric(n);
  for (const auto& row : table.rows) {
    v1::TableRow* r = out->add_rows();
    for (const std::string& cell : row) r->add_cells(cell);
  }
  for (const std::string& w : WarningLines(*comparison)) {
    response->add_warnings(w);
  }
  response->set_method(absl::StrCat(
      "Welch's two-sample t-test (unequal variances), two-sided, alpha ",
      kSignificanceAlpha, "; ", kConfidenceLevel * 100,
      "% confidence intervals (t-based)"));
  return grpc::Status::OK;
}

grpc::Status ControlService::Variability(
    grpc::ServerContext* context, const v1::VariabilityRequest* request,
    v1::VariabilityResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto spec = store_->GetSweepSpec(request->sweep_id());
  if (!spec.ok()) return ToGrpcStatus(spec.status());
  std::optional<VariabilityMetric> only;
  if (!request->metric().empty()) {
    auto metric = ParseVariabilityMetric(request->metric());
    if (!metric.ok()) return ToGrpcStatus(metric.status());
    only = metric->metric;
  }
  auto report = SweepVariability(store_, request->sweep_id(), only);
  if (!report.ok()) return ToGrpcStatus(report.status());
  *response = ToVariabilityResponse(request->sweep_id(), *report);
  if (request->save_offsets()) {
    // The offsets come from every metric, whatever `metric` shows.
    auto all = only.has_value() ? SweepVariability(store_, request->sweep_id())
                                : report;
    if (!all.ok()) return ToGrpcStatus(all.status());
    auto saved = SaveDeviceOffsets(store_, *all, request->sweep_id(),
                                   absl::ToUnixMillis(clock_->Now()));
    if (!saved.ok()) return ToGrpcStatus(saved.status());
    for (const v1::DeviceOffset& o : *saved) *response->add_saved_offsets() = o;
    if (saved->empty()) {
      response->add_warnings(
          "no offsets saved: no cell ran on 2 or more devices with "
          "minibatch times");
    }
    PS_LOG(INFO) << "sweep " << request->sweep_id() << ": saved "
                 << saved->size() << " device offsets";
  }
  return grpc::Status::OK;
}

grpc::Status ControlService::CancelRuns(grpc::ServerContext* context,
                                        const v1::CancelRunsRequest* request,
                                        v1::CancelRunsResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  const std::string reason = request->reason().empty()
                                 ? "cancelled by the user"
                                 : request->reason();
  auto n = fleet_->CancelRuns(request->sweep_id(), request->run_id(), reason);
  if (!n.ok()) return ToGrpcStatus(n.status());
  response->set_cancelled(*n);
  return grpc::Status::OK;
}

grpc::Status ControlService::ImportTelemetry(
    grpc::ServerContext* context, grpc::ServerReader<v1::ImportTelemetryChunk>* reader,
    v1::ImportTelemetryResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto devices = fleet_->ListDevices();
  if (!devices.ok()) return ToGrpcStatus(devices.status());
  auto imported = ImportTelemetryChunks(
      store_, *devices,
      [reader](v1::ImportTelemetryChunk* c) { return reader->Read(c); },
      clock_, options_.max_import_samples);
  if (!imported.ok()) return ToGrpcStatus(imported.status());
  *response = *imported;
  PS_LOG(INFO) << "imported " << response->samples() << " telemetry samples as run "
               << response->run_id() << " (sweep " << response->sweep_id() << ")";
  return grpc::Status::OK;
}

namespace {

// Copies an OK result into `response`, or returns its error.
template <typename T>
grpc::Status Reply(absl::StatusOr<T> result, T* response) {
  if (!result.ok()) return ToGrpcStatus(result.status());
  *response = *std::move(result);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status ControlService::FitModels(grpc::ServerContext* context,
                                       const v1::FitModelsRequest* request,
                                       v1::FitModelsResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  grpc::Status st = Reply(modeling_.FitModels(*request), response);
  if (st.ok()) {
    PS_LOG(INFO) << "sweep " << request->sweep_id() << ": fitted "
                 << response->models_size() << " models ("
                 << response->problems_size() << " problems)";
  }
  return st;
}

grpc::Status ControlService::ListModels(grpc::ServerContext* context,
                                        const v1::ListModelsRequest* request,
                                        v1::ListModelsResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  return Reply(modeling_.ListModels(*request), response);
}

grpc::Status ControlService::Predict(grpc::ServerContext* context,
                                     const v1::PredictRequest* request,
                                     v1::PredictResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  return Reply(modeling_.Predict(*request), response);
}

grpc::Status ControlService::Best(grpc::ServerContext* context,
                                  const v1::BestRequest* request,
                                  v1::BestResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  return Reply(modeling_.Best(*request), response);
}

grpc::Status ControlService::Pareto(grpc::ServerContext* context,
                                    const v1::ParetoRequest* request,
                                    v1::ParetoResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  return Reply(modeling_.Pareto(*request), response);
}

grpc::Status ControlService::PlanProfiling(
    grpc::ServerContext* context, const v1::PlanProfilingRequest* request,
    v1::PlanProfilingResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  return Reply(modeling_.PlanProfiling(*request), response);
}

}  // namespace powersweep
