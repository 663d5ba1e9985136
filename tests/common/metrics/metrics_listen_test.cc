#include "common/metrics/metrics_listen.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

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

}  // namespace
}  // namespace powersweep
