// The rule for the metrics flags of powersweep-controller and
// powersweep-agent: --metrics_listen=HOST:PORT turns the /metrics page on
// (empty: off, the default). A loopback address (127.x.x.x, [::1],
// localhost) is always allowed; any other address (0.0.0.0, a LAN IP)
// exposes the page to other machines and needs --metrics_allow_remote.
// --metrics_port_file=FILE gets the port actually bound (for port 0).
// StartMetricsPage serves the page for both mains.
// Thread-safe.
#ifndef POWERSWEEP_COMMON_METRICS_METRICS_LISTEN_H_
#define POWERSWEEP_COMMON_METRICS_METRICS_LISTEN_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/http/http_server.h"

namespace powersweep {

// OK when `listen` (the value of --metrics_listen; not empty) may be
// served; FailedPrecondition naming both flags when it is not a loopback
// address and `allow_remote` (--metrics_allow_remote) is false.
absl::Status CheckMetricsListen(const std::string& listen, bool allow_remote);

// The three flags' values.
struct MetricsFlags {
  std::string listen;  // --metrics_listen; empty: no page
  bool allow_remote = false;
  std::string port_file;
};

// OK when the flags go together: no --metrics_listen and neither of the
// others (InvalidArgument naming them otherwise), or CheckMetricsListen.
absl::Status CheckMetricsFlags(const MetricsFlags& flags);

// nullptr when flags.listen is empty. Otherwise serves `render` (the
// Prometheus text) at /metrics on flags.listen, writes the bound port to
// flags.port_file if set (via a temporary file and a rename) and logs the
// page's address. Errors name the flag: "--metrics_listen: ..." (cannot
// listen), "--metrics_port_file: cannot write FILE: ...".
absl::StatusOr<std::unique_ptr<HttpServer>> StartMetricsPage(
    const MetricsFlags& flags, std::function<std::string()> render);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_METRICS_METRICS_LISTEN_H_
