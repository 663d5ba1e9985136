// ControlService: lab operations on devices (drain, undrain, forget),
// thin adapters over Fleet.
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

}  // namespace powersweep
