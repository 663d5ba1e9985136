#include "common/metrics/metrics_listen.h"

#include "absl/strings/str_cat.h"
#include "common/peer_address.h"

namespace powersweep {

absl::Status CheckMetricsListen(const std::string& listen, bool allow_remote) {
  if (allow_remote || IsLoopbackListenAddress(listen)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "--metrics_listen=", listen,
      ": not a loopback address, so other machines could read the metrics "
      "page (it has no authentication); listen on 127.0.0.1:PORT, or add "
      "--metrics_allow_remote to serve it on this address"));
}

}  // namespace powersweep
