// examples/python/powersweep_client.py, run with Debian's /usr/bin/python3
// (python3-grpcio, python3-grpc-tools) against a real controller and a
// twin agent: the standard health and reflection services, then devices,
// submit, wait, sweeps and runs; on a controller with a token, which
// calls need it; and a health watch across the controller's stop.
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"

namespace powersweep::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

constexpr char kPython[] = "/usr/bin/python3";
constexpr char kClient[] =
    POWERSWEEP_SOURCE_DIR "/examples/python/powersweep_client.py";

class PythonClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("powersweep-py");
    Finished probe = Python({"-c", "import grpc, grpc_tools.protoc"});
    if (probe.exit_code != 0) {
      GTEST_SKIP() << "Debian's python3-grpcio and python3-grpc-tools are "
                      "not installed (infra/scripts/install-deps.sh): "
                   << probe.output;
    }
  }

  Finished Python(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kPython};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunToEnd(argv,
                    dir_ + "/py-" + std::to_string(++calls_) + ".log");
  }

  // The client against `fleet` with `args` after the common flags.
  Finished Client(LocalFleet& fleet, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kClient, "--controller=" + fleet.address(),
                                     "--stubs_dir=" POWERSWEEP_PY_STUBS_DIR};
    argv.insert(argv.end(), args.begin(), args.end());
    return Python(argv);
  }

  std::string dir_;
  int calls_ = 0;
};

TEST_F(PythonClientTest, HealthReflectionAndASweepFromPython) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("orin-agx-twin-0",
                   {"--platform=twin", "--device_class=orin-agx",
                    "--instance=0", "--twin_time_scale=0.01"});

  Finished r = Client(fleet, {"health"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("health server: SERVING"));
  r = Client(fleet, {"health", "--service=powersweep.v1.Control"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("health powersweep.v1.Control: SERVING"));
  r = Client(fleet, {"health", "--service=powersweep.v1.Nope"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("NOT_FOUND"));

  r = Client(fleet, {"services"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* service :
       {"grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection",
        "powersweep.v1.AgentGateway", "powersweep.v1.Control"}) {
    EXPECT_THAT(r.output, HasSubstr(std::string("service ") + service + "\n"));
  }
  EXPECT_THAT(r.output, HasSubstr("reflection: powersweep.v1.Control in "
                                  "powersweep/v1/control.proto has "));
  EXPECT_THAT(r.output, HasSubstr("SubmitSweep, GetSweep, ListSweeps"));

  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        return ::testing::Matches(
            MatchesRegex(".*orin-agx-twin-0 +orin-agx +twin +yes.*"))(
            Client(fleet, {"devices"}).output);
      },
      30))
      << Client(fleet, {"devices"}).output << fleet.Logs();

  r = Client(fleet, {"submit",
                     POWERSWEEP_SOURCE_DIR "/examples/python/twin-sweep.json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("submitted sweep 1: 2 runs"));
  r = Client(fleet, {"wait", "1", "--wait_s=120"});
  EXPECT_EQ(r.exit_code, 0) << r.output << fleet.Logs();
  EXPECT_THAT(r.output,
              HasSubstr("sweep 1 'python-twin-demo': 2/2 done, 0 failed"));
  r = Client(fleet, {"sweeps"});
  EXPECT_THAT(r.output, MatchesRegex(".*1 +python-twin-demo +2/2 +0 +yes.*"));
  r = Client(fleet, {"runs", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, MatchesRegex(".*\n1 +done +orin-agx-twin-0 +20 +"
                                     "[0-9.]+ +[0-9.]+ +simulated\n.*"))
      << r.output;
  EXPECT_THAT(r.output, MatchesRegex(".*\n2 +done +orin-agx-twin-0 +20 .*"));
}

TEST_F(PythonClientTest, WithATokenHealthAndReflectionStillNeedNone) {
  const std::string token_file = dir_ + "/token";
  std::ofstream(token_file) << "s3cret-token-0123456789\n";
  LocalFleetOptions options;
  options.controller_args = {"--control_token_file=" + token_file};
  LocalFleet fleet(options);
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();

  Finished r = Client(fleet, {"health"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("SERVING"));
  r = Client(fleet, {"services"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("service powersweep.v1.Control"));
  r = Client(fleet, {"sweeps"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("UNAUTHENTICATED"));
  r = Client(fleet, {"--token_file=" + token_file, "sweeps"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ID    NAME"));
}

// A client that watches the standard health service hears NOT_SERVING
// when the controller stops (SIGTERM), before the stream ends: a load
// balancer or a supervisor can drain it.
TEST_F(PythonClientTest, AHealthWatchHearsNotServingWhenTheControllerStops) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  const std::string log = dir_ + "/watch.log";
  Subprocess watch({kPython, kClient, "--controller=" + fleet.address(),
                    "--stubs_dir=" POWERSWEEP_PY_STUBS_DIR, "health",
                    "--watch"},
                   log);
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        return ReadFile(log).find("health server: SERVING\n") !=
               std::string::npos;
      },
      60))
      << ReadFile(log);
  fleet.StopController(SIGTERM);
  const bool ended = LocalFleet::WaitFor([&] { return !watch.running(); }, 30);
  if (!ended) watch.Kill(SIGKILL);
  ASSERT_TRUE(ended) << "the watch did not end with the controller\n"
                     << ReadFile(log);
  const int status = watch.Wait();
  const std::string out = ReadFile(log);
  EXPECT_THAT(out, HasSubstr("health server: SERVING\nhealth server: "
                             "NOT_SERVING\n"));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
}

}  // namespace
}  // namespace powersweep::testing
