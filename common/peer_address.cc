#include "common/peer_address.h"

#include <arpa/inet.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"

namespace powersweep {
namespace {

// True for a literal IPv4 or IPv6 loopback address (no port, no brackets).
bool IsLoopbackIp(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

// The host of "HOST:PORT" or "[HOST]:PORT" ("" when malformed).
std::string HostOf(absl::string_view hostport) {
  if (absl::ConsumePrefix(&hostport, "[")) {
    const size_t close = hostport.find(']');
    if (close == absl::string_view::npos) return "";
    return std::string(hostport.substr(0, close));
  }
  const size_t colon = hostport.rfind(':');
  if (colon == absl::string_view::npos) return std::string(hostport);
  return std::string(hostport.substr(0, colon));
}

}  // namespace

bool IsLoopbackPeer(const std::string& peer) {
  absl::string_view rest = peer;
  if (absl::StartsWith(rest, "unix:") ||
      absl::StartsWith(rest, "unix-abstract:")) {
    return true;
  }
  if (!absl::ConsumePrefix(&rest, "ipv4:") &&
      !absl::ConsumePrefix(&rest, "ipv6:")) {
    return false;
  }
  // gRPC percent-encodes some characters (e.g. "%5B" for '[') in peers.
  std::string decoded(rest);
  for (auto [from, to] : {std::pair<const char*, char>{"%5B", '['},
                          std::pair<const char*, char>{"%5D", ']'},
                          std::pair<const char*, char>{"%3A", ':'}}) {
    for (size_t at; (at = decoded.find(from)) != std::string::npos;) {
      decoded.replace(at, 3, 1, to);
    }
  }
  return IsLoopbackIp(HostOf(decoded));
}

bool IsLoopbackListenAddress(const std::string& address) {
  if (absl::StartsWith(address, "unix:") ||
      absl::StartsWith(address, "unix-abstract:")) {
    return true;
  }
  std::string host = HostOf(address);
  if (absl::AsciiStrToLower(host) == "localhost") return true;
  return IsLoopbackIp(host);
}

}  // namespace powersweep
