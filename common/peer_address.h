// Loopback tests for gRPC addresses: the peer string of a call
// (grpc::ServerContext::peer(), "ipv4:127.0.0.1:5000", "ipv6:[::1]:5000",
// "unix:/path") and the address a server listens on ("127.0.0.1:7070",
// "localhost:7070", "[::1]:7070", "0.0.0.0:7070"). Pure functions.
#ifndef POWERSWEEP_COMMON_PEER_ADDRESS_H_
#define POWERSWEEP_COMMON_PEER_ADDRESS_H_

#include <string>

namespace powersweep {

// True for a peer on this machine: IPv4 127.0.0.0/8, IPv6 ::1, an
// IPv4-mapped 127.x address, or a Unix socket. False for anything else,
// including strings that do not parse.
bool IsLoopbackPeer(const std::string& peer);

// True when a server listening on `address` only accepts connections from
// this machine: host 127.x.x.x, ::1 or localhost, or a unix: address.
// 0.0.0.0, [::], host names and anything unparsable are not loopback.
bool IsLoopbackListenAddress(const std::string& address);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_PEER_ADDRESS_H_
