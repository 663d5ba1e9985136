// ListenTcp: a listening TCP socket for "HOST:PORT" or "[IPV6]:PORT" (HOST
// a literal address or a name that resolves, e.g. localhost; port 0 picks a
// free port). Shared by the metrics page's HttpServer and the controller's
// guarded gRPC listener (controller/service/guarded_listener.h).
#ifndef POWERSWEEP_COMMON_NET_LISTEN_SOCKET_H_
#define POWERSWEEP_COMMON_NET_LISTEN_SOCKET_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace powersweep {

// Splits "HOST:PORT" or "[HOST]:PORT". InvalidArgument (quoting `listen`)
// for anything else or a port outside 0..65535.
absl::Status SplitHostPort(const std::string& listen, std::string* host,
                           int* port);

struct ListeningSocket {
  int fd = -1;   // non-blocking, close-on-exec; the caller closes it
  int port = 0;  // the port actually bound
};

// Resolves, binds (SO_REUSEADDR) and listens with `backlog`.
// InvalidArgument for an address that does not parse or resolve (the
// message quotes it); Unavailable when it cannot be bound (e.g. in use).
absl::StatusOr<ListeningSocket> ListenTcp(const std::string& listen,
                                          int backlog);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_NET_LISTEN_SOCKET_H_
