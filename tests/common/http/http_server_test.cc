#include "common/http/http_server.h"

#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/http/http_test_client.h"

namespace powersweep {
namespace {

using ::powersweep::testing::ConnectLoopback;
using ::powersweep::testing::HttpGet;
using ::powersweep::testing::RawHttpResponse;
using ::powersweep::testing::RawRequest;
using ::powersweep::testing::ReadResponse;
using ::powersweep::testing::SendAll;
using ::testing::HasSubstr;

constexpr char kPage[] = "# TYPE up gauge\nup 1\n";

class HttpServerTest : public ::testing::Test {
 protected:
  void StartServer(HttpServerOptions options = {}) {
    auto started = HttpServer::Start("127.0.0.1:0",
                                     {{"/metrics", "text/plain; version=0.0.4",
                                       [this] {
                                         ++scrapes_;
                                         return std::string(kPage);
                                       }}},
                                     options);
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = std::move(*started);
    ASSERT_GT(server_->port(), 0);
  }
  int port() const { return server_->port(); }

  std::atomic<int> scrapes_{0};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, GetMetricsAnswersThePageWithItsTypeAndLength) {
  StartServer();
  RawHttpResponse r = HttpGet(port(), "/metrics");
  ASSERT_TRUE(r.ok) << r.raw;
  EXPECT_EQ(r.status, 200) << r.raw;
  EXPECT_THAT(r.head, ::testing::StartsWith("HTTP/1.1 200 OK"));
  EXPECT_EQ(r.Header("Content-Type"), "text/plain; version=0.0.4");
  EXPECT_EQ(r.Header("Content-Length"), std::to_string(r.body.size()));
  EXPECT_EQ(r.Header("Connection"), "close");
  EXPECT_EQ(r.body, kPage);
  EXPECT_EQ(scrapes_, 1);
}

TEST_F(HttpServerTest, EachRequestReadsThePageAgain) {
  StartServer();
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(HttpGet(port(), "/metrics").status, 200);
  EXPECT_EQ(scrapes_, 3);
}

TEST_F(HttpServerTest, AQueryStringIsIgnored) {
  StartServer();
  EXPECT_EQ(HttpGet(port(), "/metrics?name[]=up").body, kPage);
}

TEST_F(HttpServerTest, OtherPathsAreNotFound) {
  StartServer();
  for (const char* path : {"/", "/metrics/", "/metricsx", "/favicon.ico"}) {
    RawHttpResponse r = HttpGet(port(), path);
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_THAT(r.body, HasSubstr("/metrics")) << path;
  }
  EXPECT_EQ(scrapes_, 0);
}

TEST_F(HttpServerTest, OtherMethodsAreNotAllowed) {
  StartServer();
  RawHttpResponse r = RawRequest(
      port(), "POST /metrics HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi");
  EXPECT_EQ(r.status, 405) << r.raw;
  EXPECT_EQ(r.Header("Allow"), "GET, HEAD");
  EXPECT_EQ(scrapes_, 0);
}

TEST_F(HttpServerTest, HeadAnswersTheHeadersWithoutTheBody) {
  StartServer();
  RawHttpResponse r = RawRequest(port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.Header("Content-Length"), std::to_string(strlen(kPage)));
  EXPECT_EQ(r.body, "");
}

TEST_F(HttpServerTest, MalformedRequestsAreBadRequests) {
  StartServer();
  for (const char* request :
       {"GARBAGE\r\n\r\n", "GET /metrics\r\n\r\n",
        "GET metrics HTTP/1.1\r\n\r\n", "GET /metrics HTTP/2.0\r\n\r\n",
        "G(T /metrics HTTP/1.1\r\n\r\n"}) {
    RawHttpResponse r = RawRequest(port(), request);
    EXPECT_EQ(r.status, 400) << request << " -> " << r.raw;
  }
}

TEST_F(HttpServerTest, BareLineFeedsAreAccepted) {
  StartServer();
  EXPECT_EQ(RawRequest(port(), "GET /metrics HTTP/1.0\n\n").status, 200);
}

TEST_F(HttpServerTest, AnOversizedRequestHeadIsRefusedAndServingGoesOn) {
  HttpServerOptions options;
  options.max_request_bytes = 512;
  StartServer(options);
  const std::string big =
      "GET /metrics HTTP/1.1\r\nX-Pad: " + std::string(4096, 'a') + "\r\n\r\n";
  RawHttpResponse r = RawRequest(port(), big);
  EXPECT_EQ(r.status, 431) << r.head;
  EXPECT_THAT(r.body, HasSubstr("512 bytes"));
  EXPECT_EQ(HttpGet(port(), "/metrics").status, 200);
}

TEST_F(HttpServerTest, ASilentClientTimesOutAndTheNextClientIsServed) {
  HttpServerOptions options;
  options.request_timeout = absl::Milliseconds(300);
  StartServer(options);
  // The first client sends half a request and nothing more; the second,
  // queued behind it on the one server thread, is served once the first
  // has timed out.
  const int silent = ConnectLoopback(port());
  ASSERT_GE(silent, 0);
  ASSERT_TRUE(SendAll(silent, "GET /metrics HTTP/1.1\r\n"));
  const int second = ConnectLoopback(port());
  ASSERT_GE(second, 0);
  ASSERT_TRUE(SendAll(second, "GET /metrics HTTP/1.1\r\n\r\n"));
  RawHttpResponse first = ReadResponse(silent);
  RawHttpResponse next = ReadResponse(second);
  close(silent);
  close(second);
  EXPECT_EQ(first.status, 408) << first.raw;
  EXPECT_EQ(next.status, 200) << next.raw;
  EXPECT_EQ(next.body, kPage);
}

TEST_F(HttpServerTest, AClientThatHangsUpEarlyDoesNotStopTheServer) {
  StartServer();
  for (const char* partial : {"", "GET /met"}) {
    const int fd = ConnectLoopback(port());
    ASSERT_GE(fd, 0);
    SendAll(fd, partial);
    close(fd);
  }
  EXPECT_EQ(HttpGet(port(), "/metrics").status, 200);
}

TEST_F(HttpServerTest, StopReturnsWhileAClientHoldsTheConnection) {
  HttpServerOptions options;
  options.request_timeout = absl::Hours(1);
  StartServer(options);
  const int idle = ConnectLoopback(port());
  ASSERT_GE(idle, 0);
  // The server thread is (or soon will be) waiting for this client's
  // request; Stop must not wait for the hour.
  server_->Stop();
  // Closed (or reset, if it was not accepted yet) without a response.
  RawHttpResponse r = ReadResponse(idle, 5);
  close(idle);
  EXPECT_EQ(r.status, 0) << r.raw;
  EXPECT_LT(ConnectLoopback(port()), 0);
}

TEST(HttpServerStartTest, BadAddressesAreRefusedQuotingThem) {
  for (const char* listen : {"nohost", "127.0.0.1:99999", "127.0.0.1:x", "[::1",
                             ":9464", "127.0.0.1:"}) {
    auto started = HttpServer::Start(listen, {});
    ASSERT_FALSE(started.ok()) << listen;
    EXPECT_EQ(started.status().code(), absl::StatusCode::kInvalidArgument)
        << listen;
    EXPECT_THAT(started.status().message(),
                HasSubstr(std::string("'") + listen + "'"));
  }
}

TEST(HttpServerStartTest, APortInUseIsUnavailable) {
  auto first = HttpServer::Start("127.0.0.1:0", {});
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string taken = "127.0.0.1:" + std::to_string((*first)->port());
  auto second = HttpServer::Start(taken, {});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("in use"));
}

TEST(HttpServerStartTest, ListensOnIpv6Loopback) {
  auto started = HttpServer::Start("[::1]:0", {});
  if (!started.ok()) GTEST_SKIP() << "no IPv6 here: " << started.status();
  EXPECT_GT((*started)->port(), 0);
}

}  // namespace
}  // namespace powersweep
