// ControlService: the gRPC adapter for the Control API the CLI uses. Each
// method translates protos and calls SweepSubmitter, Fleet, the Store or
// the run-summary analysis; no logic of its own. Thread-safe if those are.
// Every method first asks the ControlAuthenticator of the options (when
// set) whether the caller may use Control (controller/service/control_auth.h)
// and returns its UNAUTHENTICATED error if not.
#ifndef POWERSWEEP_CONTROLLER_SERVICE_CONTROL_SERVICE_H_
#define POWERSWEEP_CONTROLLER_SERVICE_CONTROL_SERVICE_H_

#include "common/clock.h"
#include "common/power/power_catalog.h"
#include "controller/core/fleet.h"
#include "controller/core/sweep_waiting.h"
#include "controller/importer/import_run.h"
#include "controller/service/control_auth.h"
#include "controller/modeling/modeling_service.h"
#include "controller/sweep/submitter.h"
#include "powersweep/v1/control.grpc.pb.h"
#include "powersweep/v1/modeling.pb.h"
#include "powersweep/v1/sweep.pb.h"
#include "storage/store.h"

namespace powersweep {

struct ControlServiceOptions {
  // Who may call; null: everyone (unit tests). Must outlive the service.
  const ControlAuthenticator* auth = nullptr;
  // ImportTelemetry refuses a stream with more samples (--max_import_samples).
  int64_t max_import_samples = kDefaultMaxImportSamples;
};

class ControlService final : public v1::Control::Service {
 public:
  // `clock` (for the times of imported runs) may be null: the real clock.
  ControlService(Store* store, Fleet* fleet, SweepSubmitter* submitter,
                 Clock* clock = nullptr, ControlServiceOptions options = {})
      : store_(store),
        fleet_(fleet),
        submitter_(submitter),
        clock_(clock != nullptr ? clock : &real_clock_),
        options_(options),
        modeling_(store, clock_) {}

  grpc::Status SubmitSweep(grpc::ServerContext* context,
                           const v1::SubmitSweepRequest* request,
                           v1::SubmitSweepResponse* response) override;
  grpc::Status GetSweep(grpc::ServerContext* context,
                        const v1::GetSweepRequest* request,
                        v1::SweepStatus* response) override;
  grpc::Status ListSweeps(grpc::ServerContext* context,
                          const v1::ListSweepsRequest* request,
                          v1::ListSweepsResponse* response) override;
  grpc::Status ListDevices(grpc::ServerContext* context,
                           const v1::ListDevicesRequest* request,
                           v1::ListDevicesResponse* response) override;
  grpc::Status ListRuns(grpc::ServerContext* context,
                        const v1::ListRunsRequest* request,
                        v1::ListRunsResponse* response) override;
  grpc::Status Export(grpc::ServerContext* context,
                      const v1::ExportRequest* request,
                      grpc::ServerWriter<v1::ExportChunk>* writer) override;
  // The device's class presets and custom-space size (common/power);
  // NOT_FOUND for an unknown device id.
  grpc::Status ListModes(grpc::ServerContext* context,
                         const v1::ListModesRequest* request,
                         v1::ListModesResponse* response) override;
  // controller/analysis/compare.h over the sweep's done runs; NOT_FOUND
  // for an unknown sweep, INVALID_ARGUMENT for an unknown `by` or, by
  // device, not two different devices.
  grpc::Status Compare(grpc::ServerContext* context,
                       const v1::CompareRequest* request,
                       v1::CompareResponse* response) override;
  // controller/analysis/variability.h over the sweep's done runs, and with
  // save_offsets the devices' calibration offsets stored
  // (device_offsets.h); NOT_FOUND for an unknown sweep, INVALID_ARGUMENT
  // for an unknown metric.
  grpc::Status Variability(grpc::ServerContext* context,
                           const v1::VariabilityRequest* request,
                           v1::VariabilityResponse* response) override;
  // Fleet::CancelRuns; NOT_FOUND for an unknown sweep or run.
  grpc::Status CancelRuns(grpc::ServerContext* context,
                          const v1::CancelRunsRequest* request,
                          v1::CancelRunsResponse* response) override;
  // Lab operations (control_lab_ops.cc): Fleet::SetDeviceState and
  // Fleet::Rerun.
  grpc::Status SetDeviceState(grpc::ServerContext* context,
                              const v1::SetDeviceStateRequest* request,
                              v1::SetDeviceStateResponse* response) override;
  grpc::Status Rerun(grpc::ServerContext* context,
                     const v1::RerunRequest* request,
                     v1::RerunResponse* response) override;
  // Stores streamed telemetry as a new done run (controller/importer);
  // NOT_FOUND for an unknown device.
  grpc::Status ImportTelemetry(
      grpc::ServerContext* context,
      grpc::ServerReader<v1::ImportTelemetryChunk>* reader,
      v1::ImportTelemetryResponse* response) override;

  // Time and energy models: controller/modeling/modeling_service.h.
  grpc::Status FitModels(grpc::ServerContext* context,
                         const v1::FitModelsRequest* request,
                         v1::FitModelsResponse* response) override;
  grpc::Status ListModels(grpc::ServerContext* context,
                          const v1::ListModelsRequest* request,
                          v1::ListModelsResponse* response) override;
  grpc::Status Predict(grpc::ServerContext* context,
                       const v1::PredictRequest* request,
                       v1::PredictResponse* response) override;
  grpc::Status Best(grpc::ServerContext* context,
                    const v1::BestRequest* request,
                    v1::BestResponse* response) override;
  grpc::Status Pareto(grpc::ServerContext* context,
                      const v1::ParetoRequest* request,
                      v1::ParetoResponse* response) override;
  grpc::Status PlanProfiling(grpc::ServerContext* context,
                             const v1::PlanProfilingRequest* request,
                             v1::PlanProfilingResponse* response) override;

 private:
  // OK, or the authenticator's refusal of this call.
  grpc::Status Authorize(const grpc::ServerContext* context) const;
  // SweepStatus.waiting of the unfinished `sweeps` (WaitingReasons over
  // the fleet's devices and the first kMaxPendingExplained pending runs).
  void FillWaiting(const std::vector<v1::SweepStatus*>& sweeps);
  static constexpr int kMaxPendingExplained = 100000;

  Store* store_;
  Fleet* fleet_;
  SweepSubmitter* submitter_;
  RealClock real_clock_;
  Clock* clock_;
  const ControlServiceOptions options_;
  const PowerCatalog power_catalog_ = PowerCatalog::Default();
  modeling::ModelingService modeling_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SERVICE_CONTROL_SERVICE_H_
