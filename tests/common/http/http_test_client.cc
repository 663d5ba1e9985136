#include "tests/common/http/http_test_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace powersweep::testing {

std::string RawHttpResponse::Header(const std::string& name) const {
  for (absl::string_view line : absl::StrSplit(head, "\r\n")) {
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    if (absl::EqualsIgnoreCase(line.substr(0, colon), name)) {
      return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  }
  return "";
}

int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n =
        send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

RawHttpResponse ReadResponse(int fd, double timeout_s) {
  RawHttpResponse r;
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return r;  // timed out: ok stays false
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0) return r;
    if (n == 0) break;
    r.raw.append(buf, static_cast<size_t>(n));
  }
  r.ok = true;
  const size_t end = r.raw.find("\r\n\r\n");
  r.head = r.raw.substr(0, end);
  if (end != std::string::npos) r.body = r.raw.substr(end + 4);
  std::vector<std::string> first = absl::StrSplit(r.head, ' ');
  if (first.size() >= 2) (void)absl::SimpleAtoi(first[1], &r.status);
  return r;
}

RawHttpResponse RawRequest(int port, const std::string& request,
                           double timeout_s) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return {};
  RawHttpResponse r;
  if (SendAll(fd, request)) r = ReadResponse(fd, timeout_s);
  close(fd);
  return r;
}

RawHttpResponse HttpGet(int port, const std::string& path) {
  return RawRequest(port, "GET " + path +
                              " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              "User-Agent: powersweep-test\r\n\r\n");
}

}  // namespace powersweep::testing
