// The rule for the metrics flags of powersweep-controller and
// powersweep-agent: --metrics_listen=HOST:PORT turns the /metrics page on
// (empty: off, the default). A loopback address (127.x.x.x, [::1],
// localhost) is always allowed; any other address (0.0.0.0, a LAN IP)
// exposes the page to other machines and needs --metrics_allow_remote.
// Pure; thread-safe.
#ifndef POWERSWEEP_COMMON_METRICS_METRICS_LISTEN_H_
#define POWERSWEEP_COMMON_METRICS_METRICS_LISTEN_H_

#include <string>

#include "absl/status/status.h"

namespace powersweep {

// OK when `listen` (the value of --metrics_listen; not empty) may be
// served; FailedPrecondition naming both flags when it is not a loopback
// address and `allow_remote` (--metrics_allow_remote) is false.
absl::Status CheckMetricsListen(const std::string& listen, bool allow_remote);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_METRICS_METRICS_LISTEN_H_
