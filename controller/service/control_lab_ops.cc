// ControlService: lab operations on devices and sweeps (drain, undrain,
// forget; rerun), thin adapters over Fleet.
#include "common/grpc_status.h"
#include "common/log.h"
#include "controller/service/control_service.h"

namespace powersweep {

grpc::Status ControlService::SetDeviceState(
    grpc::ServerContext* context, const v1::SetDeviceStateRequest* request,
    v1::SetDeviceStateResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto message = fleet_->SetDeviceState(request->device_id(), request->action());
  if (!message.ok()) return ToGrpcStatus(message.status());
  response->set_message(*message);
  return grpc::Status::OK;
}

grpc::Status ControlService::Rerun(grpc::ServerContext* context,
                                   const v1::RerunRequest* request,
                                   v1::RerunResponse* response) {
  if (grpc::Status st = Authorize(context); !st.ok()) return st;
  auto rerun = fleet_->Rerun(request->sweep_id(), request->failed(),
                             request->cancelled(), request->timeout_s());
  if (!rerun.ok()) return ToGrpcStatus(rerun.status());
  *response = *std::move(rerun);
  return grpc::Status::OK;
}

}  // namespace powersweep
