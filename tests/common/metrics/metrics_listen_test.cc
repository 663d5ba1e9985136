#include "common/metrics/metrics_listen.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/http/http_test_client.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

TEST(MetricsListenTest, LoopbackAddressesNeedNothing) {
  for (const char* listen :
       {"127.0.0.1:9464", "127.0.0.1:0", "[::1]:9464", "localhost:9464"}) {
    EXPECT_TRUE(CheckMetricsListen(listen, false).ok()) << listen;
  }
}

TEST(MetricsListenTest, OtherAddressesAreRefusedNamingBothFlags) {
  for (const char* listen :
       {"0.0.0.0:9464", "192.168.1.5:9464", "[::]:9464", "workstation:9464"}) {
    absl::Status st = CheckMetricsListen(listen, false);
    EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << listen;
    EXPECT_THAT(st.message(),
                HasSubstr(std::string("--metrics_listen=") + listen));
    EXPECT_THAT(st.message(), HasSubstr("--metrics_allow_remote"));
  }
}

TEST(MetricsListenTest, AllowRemoteAllowsThem) {
  EXPECT_TRUE(CheckMetricsListen("0.0.0.0:9464", true).ok());
}

TEST(MetricsFlagsTest, TheOtherFlagsNeedMetricsListen) {
  EXPECT_TRUE(CheckMetricsFlags({}).ok());
  EXPECT_TRUE(CheckMetricsFlags({"127.0.0.1:0", false, "/tmp/p"}).ok());
  for (const MetricsFlags& flags :
       {MetricsFlags{"", true, ""}, MetricsFlags{"", false, "/tmp/p"}}) {
    absl::Status st = CheckMetricsFlags(flags);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(st.message(), HasSubstr("only used with --metrics_listen"));
  }
  EXPECT_EQ(CheckMetricsFlags({"0.0.0.0:0", false, ""}).code(),
            absl::StatusCode::kFailedPrecondition);
}

// The page both mains start: /metrics with the rendered text, the bound
// port in the port file; off without --metrics_listen; errors name the
// flag.
TEST(MetricsFlagsTest, StartMetricsPageServesTheTextAndWritesThePort) {
  char dir_template[] = "/tmp/metrics-page-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  absl::StatusOr<std::unique_ptr<HttpServer>> off =
      StartMetricsPage({}, [] { return std::string("x 1\n"); });
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(*off, nullptr);

  const std::string port_file = dir + "/port";
  absl::StatusOr<std::unique_ptr<HttpServer>> page = StartMetricsPage(
      {"127.0.0.1:0", false, port_file}, [] { return std::string("x 1\n"); });
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_NE(*page, nullptr);
  int written = 0;
  std::ifstream(port_file) >> written;
  EXPECT_EQ(written, (*page)->port());
  const testing::RawHttpResponse r = testing::HttpGet(written, "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(r.body, HasSubstr("x 1\n"));

  absl::StatusOr<std::unique_ptr<HttpServer>> unwritable = StartMetricsPage(
      {"127.0.0.1:0", false, dir + "/no/such/dir/port"},
      [] { return std::string(); });
  EXPECT_THAT(unwritable.status().message(),
              HasSubstr("--metrics_port_file: cannot write " + dir +
                        "/no/such/dir/port"));
  absl::StatusOr<std::unique_ptr<HttpServer>> bad =
      StartMetricsPage({"127.0.0.1:notaport", false, ""},
                       [] { return std::string(); });
  EXPECT_THAT(bad.status().message(), HasSubstr("--metrics_listen: "));
}

}  // namespace
}  // namespace powersweep
