#include "common/peer_address.h"

#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(PeerAddressTest, LoopbackPeers) {
  EXPECT_TRUE(IsLoopbackPeer("ipv4:127.0.0.1:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv4:127.1.2.3:1"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:[::1]:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:%5B::1%5D:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:[::ffff:127.0.0.1]:40000"));
  EXPECT_TRUE(IsLoopbackPeer("unix:/tmp/sock"));
}

TEST(PeerAddressTest, RemoteAndMalformedPeersAreNotLoopback) {
  EXPECT_FALSE(IsLoopbackPeer("ipv4:10.0.0.5:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv4:128.0.0.1:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv6:[::ffff:10.0.0.5]:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv6:[2001:db8::1]:40000"));
  EXPECT_FALSE(IsLoopbackPeer("127.0.0.1:40000"));  // no scheme
  EXPECT_FALSE(IsLoopbackPeer("ipv4:localhost:40000"));
  EXPECT_FALSE(IsLoopbackPeer(""));
}

TEST(PeerAddressTest, ListenAddresses) {
  EXPECT_TRUE(IsLoopbackListenAddress("127.0.0.1:7070"));
  EXPECT_TRUE(IsLoopbackListenAddress("127.0.0.1:0"));
  EXPECT_TRUE(IsLoopbackListenAddress("localhost:7070"));
  EXPECT_TRUE(IsLoopbackListenAddress("[::1]:7070"));
  EXPECT_TRUE(IsLoopbackListenAddress("unix:/run/powersweep.sock"));
  EXPECT_FALSE(IsLoopbackListenAddress("0.0.0.0:7070"));
  EXPECT_FALSE(IsLoopbackListenAddress("[::]:7070"));
  EXPECT_FALSE(IsLoopbackListenAddress("10.0.0.5:7070"));
  EXPECT_FALSE(IsLoopbackListenAddress("ctl.lab:7070"));
  EXPECT_FALSE(IsLoopbackListenAddress(":7070"));
}

}  // namespace
}  // namespace powersweep
