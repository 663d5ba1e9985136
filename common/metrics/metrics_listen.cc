#include "common/metrics/metrics_listen.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/metrics/exposition.h"
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

absl::Status CheckMetricsFlags(const MetricsFlags& flags) {
  if (!flags.listen.empty()) {
    return CheckMetricsListen(flags.listen, flags.allow_remote);
  }
  if (flags.allow_remote || !flags.port_file.empty()) {
    return absl::InvalidArgumentError(
        "--metrics_allow_remote and --metrics_port_file: only used with "
        "--metrics_listen");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HttpServer>> StartMetricsPage(
    const MetricsFlags& flags, std::function<std::string()> render) {
  if (flags.listen.empty()) return nullptr;
  absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(
      flags.listen,
      {HttpEndpoint{"/metrics", kExpositionContentType, std::move(render)}});
  if (!server.ok()) {
    return absl::Status(server.status().code(),
                        absl::StrCat("--metrics_listen: ",
                                     server.status().message()));
  }
  const int port = (*server)->port();
  if (!flags.port_file.empty()) {
    const std::string tmp = flags.port_file + ".tmp";
    std::ofstream(tmp) << port << "\n";
    if (std::rename(tmp.c_str(), flags.port_file.c_str()) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("--metrics_port_file: cannot write ", flags.port_file,
                       ": ", std::strerror(errno)));
    }
  }
  PS_LOG(INFO) << "metrics on http://"
               << flags.listen.substr(0, flags.listen.rfind(':')) << ":"
               << port << "/metrics";
  return server;
}

}  // namespace powersweep
