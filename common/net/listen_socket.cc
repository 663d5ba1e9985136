#include "common/net/listen_socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace powersweep {

absl::Status SplitHostPort(const std::string& listen, std::string* host,
                           int* port) {
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("'", listen, "': ", why,
                                                   " (expected HOST:PORT, e.g. "
                                                   "127.0.0.1:9464)"));
  };
  absl::string_view rest = listen;
  if (!rest.empty() && rest[0] == '[') {
    const size_t close = rest.find(']');
    if (close == absl::string_view::npos) return bad("no ']' after '['");
    *host = std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
    if (rest.empty() || rest[0] != ':') return bad("no ':PORT' after ']'");
    rest.remove_prefix(1);
  } else {
    const size_t colon = rest.rfind(':');
    if (colon == absl::string_view::npos) return bad("no ':PORT'");
    *host = std::string(rest.substr(0, colon));
    rest.remove_prefix(colon + 1);
  }
  if (host->empty()) return bad("no host");
  if (!absl::SimpleAtoi(rest, port) || *port < 0 || *port > 65535) {
    return bad("the port must be a number in 0..65535");
  }
  return absl::OkStatus();
}

absl::StatusOr<ListeningSocket> ListenTcp(const std::string& listen,
                                          int backlog) {
  std::string host;
  int port = 0;
  if (absl::Status st = SplitHostPort(listen, &host, &port); !st.ok()) {
    return st;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int gai =
      getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (gai != 0 || found == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", listen, "': cannot resolve '", host, "': ", gai_strerror(gai)));
  }
  int fd = socket(found->ai_family,
                  found->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) {
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, found->ai_addr, found->ai_addrlen) != 0 ||
        ::listen(fd, backlog) != 0) {
      err = errno;
    }
  }
  freeaddrinfo(found);
  if (err != 0) {
    if (fd >= 0) close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot listen on '", listen, "': ", std::strerror(err)));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  ListeningSocket out;
  out.fd = fd;
  out.port = bound.ss_family == AF_INET6
                 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                 : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return out;
}

}  // namespace powersweep
