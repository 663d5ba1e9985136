// ControlService: the gRPC adapter for the Control API the CLI uses. Each
// method translates protos and calls SweepSubmitter, Fleet, the Store or
// the run-summary analysis; no logic of its own. Thread-safe if those are.
#ifndef POWERSWEEP_CONTROLLER_SERVICE_CONTROL_SERVICE_H_
#define POWERSWEEP_CONTROLLER_SERVICE_CONTROL_SERVICE_H_

#include "controller/core/fleet.h"
#include "controller/sweep/submitter.h"
#include "powersweep/v1/powersweep.grpc.pb.h"
#include "storage/store.h"

namespace powersweep {

class ControlService final : public v1::Control::Service {
 public:
  ControlService(Store* store, Fleet* fleet, SweepSubmitter* submitter)
      : store_(store), fleet_(fleet), submitter_(submitter) {}

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

 private:
  Store* store_;
  Fleet* fleet_;
  SweepSubmitter* submitter_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SERVICE_CONTROL_SERVICE_H_
