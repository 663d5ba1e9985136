// absl::Status <-> grpc::Status, code for code. Thread-safe.
#ifndef POWERSWEEP_COMMON_GRPC_STATUS_H_
#define POWERSWEEP_COMMON_GRPC_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace powersweep {

inline grpc::Status ToGrpcStatus(const absl::Status& s) {
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      std::string(s.message()));
}

inline absl::Status FromGrpcStatus(const grpc::Status& s) {
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      s.error_message());
}

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_GRPC_STATUS_H_
