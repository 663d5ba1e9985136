// Identity and transport security with real processes: a lab CA made by
// infra/scripts/make-lab-ca.sh, a TLS controller, a twin agent with its
// device certificate, impostor agents, Control callers with and without a
// token, and the refusal to serve plaintext on a reachable address.
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/subprocess.h"

namespace powersweep::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kToken[] = "it-token-0123456789abcdef0123456789";

// Counts the lines of `text` that contain `needle`.
int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = 0; (at = text.find(needle, at)) != std::string::npos;
       at += needle.size()) {
    ++n;
  }
  return n;
}

class SecureFleetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lab_ = MakeTempDir("powersweep-lab") + "/lab";
    const std::string script =
        std::string(POWERSWEEP_SOURCE_DIR) + "/infra/scripts/make-lab-ca.sh ";
    for (const char* args :
         {"controller", "device orin-01 orin-02", "operator"}) {
      ASSERT_EQ(
          std::system((script + lab_ + " " + args + " >/dev/null").c_str()), 0)
          << args;
    }
    token_file_ = lab_ + "/token";
    FILE* f = std::fopen(token_file_.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "%s\n", kToken);
    std::fclose(f);
  }

  std::string Lab(const std::string& file) const { return lab_ + "/" + file; }

  // TLS credentials trusting the lab CA, with the client certificate
  // `name` (e.g. "device-orin-01"), or none when empty.
  std::shared_ptr<grpc::ChannelCredentials> Credentials(
      const std::string& name) const {
    grpc::SslCredentialsOptions o;
    o.pem_root_certs = ReadFile(Lab("ca.crt"));
    if (!name.empty()) {
      o.pem_cert_chain = ReadFile(Lab(name + ".crt"));
      o.pem_private_key = ReadFile(Lab(name + ".key"));
    }
    return grpc::SslCredentials(o);
  }

  std::vector<std::string> TwinArgs(const std::string& cert) const {
    std::vector<std::string> args = {"--platform=twin",
                                     "--device_class=orin-agx",
                                     "--instance=1",
                                     "--twin_seed=1",
                                     "--twin_time_scale=0.1",
                                     "--max_backoff_s=0.5",
                                     "--tls_ca=" + Lab("ca.crt")};
    if (!cert.empty()) {
      args.push_back("--tls_cert=" + Lab(cert + ".crt"));
      args.push_back("--tls_key=" + Lab(cert + ".key"));
    }
    return args;
  }

  std::string lab_;
  std::string token_file_;
};

v1::SweepSpec ShortTwinSweep() {
  return OrinTwinSweep("it-secure", v1::TASK_TRAIN, 4, 50);
}

TEST_F(SecureFleetTest, DevicesAndOperatorsAreAuthenticated) {
  LocalFleetOptions options;
  options.controller_args = {
      "--tls_cert=" + Lab("controller.crt"),
      "--tls_key=" + Lab("controller.key"), "--tls_ca=" + Lab("ca.crt"),
      "--control_token_file=" + token_file_, "--trust_loopback=false"};
  // The fleet's own Control stub is an operator.
  options.control_credentials = Credentials("operator-operator");
  LocalFleet fleet(options);
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();

  // (a) The device with its own certificate registers.
  fleet.StartAgent("orin-01", TwinArgs("device-orin-01"));
  auto connected = [&] {
    for (const auto& d : fleet.ListDevices()) {
      if (d.identity().device_id() == "orin-01" && d.connected()) return true;
    }
    return false;
  };
  ASSERT_TRUE(LocalFleet::WaitFor(connected, 20)) << fleet.Logs();

  // (b) Impostors claiming orin-01: no certificate, and orin-02's.
  const std::string controller_log = fleet.dir() + "/controller.log";
  auto impostor = [&](const std::string& name, const std::string& cert) {
    std::vector<std::string> argv = {
        POWERSWEEP_AGENT_BIN, "--controller=" + fleet.address(),
        "--device_id=orin-01", "--work_dir=" + fleet.dir() + "/" + name};
    for (const std::string& a : TwinArgs(cert)) argv.push_back(a);
    return std::make_unique<Subprocess>(argv,
                                        fleet.dir() + "/" + name + ".log");
  };
  auto no_cert = impostor("impostor-nocert", "");
  auto other_cert = impostor("impostor-orin-02", "device-orin-02");
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        const std::string log = ReadFile(controller_log);
        return CountLines(log, "no client certificate") >= 2 &&
               CountLines(log, "certificate is for 'orin-02'") >= 2;
      },
      20))
      << fleet.Logs();
  EXPECT_THAT(no_cert->Log(), HasSubstr("device 'orin-01'"));
  EXPECT_THAT(no_cert->Log(), HasSubstr("code 16"));  // UNAUTHENTICATED
  EXPECT_THAT(other_cert->Log(),
              HasSubstr("the client certificate is for 'orin-02'"));
  EXPECT_THAT(other_cert->Log(), HasSubstr("code 7"));  // PERMISSION_DENIED

  // The legitimate device keeps its session and runs a sweep while the
  // impostors keep retrying.
  auto refusals = [&] {
    return CountLines(ReadFile(controller_log), "refused registration");
  };
  const int refusals_before = refusals();
  std::string error;
  const int64_t sweep = fleet.Submit(ShortTwinSweep(), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(
      LocalFleet::WaitFor([&] { return fleet.GetSweep(sweep).finished(); }, 40))
      << fleet.Logs();
  const auto runs = fleet.ListRuns(sweep);
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.state(), v1::RUN_STATE_DONE) << run.reason();
    EXPECT_EQ(run.device_id(), "orin-01");
  }
  EXPECT_TRUE(connected());
  EXPECT_GT(refusals(), refusals_before);  // impostors tried during the sweep
  EXPECT_EQ(CountLines(fleet.agent("orin-01")->Log(), "registered with"), 1)
      << fleet.agent("orin-01")->Log();
  EXPECT_TRUE(no_cert->running());
  EXPECT_TRUE(other_cert->running());
  EXPECT_THAT(no_cert->Log(), ::testing::Not(HasSubstr("registered with")));
  EXPECT_THAT(other_cert->Log(), ::testing::Not(HasSubstr("registered with")));

  // (c) --trust_loopback=false: Control needs the token or an operator
  // certificate, also from this machine.
  auto list_devices = [&](std::shared_ptr<grpc::ChannelCredentials> creds,
                          const std::string& token) {
    auto stub =
        v1::Control::NewStub(grpc::CreateChannel(fleet.address(), creds));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(10));
    if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
    v1::ListDevicesResponse resp;
    return stub->ListDevices(&ctx, {}, &resp);
  };
  grpc::Status anonymous = list_devices(Credentials(""), "");
  EXPECT_EQ(anonymous.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(anonymous.error_message(),
              HasSubstr("needs a bearer token or an operator certificate"));
  grpc::Status device = list_devices(Credentials("device-orin-01"), "");
  EXPECT_EQ(device.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  grpc::Status wrong = list_devices(Credentials(""), "wrong-token-0123456789");
  EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  grpc::Status with_token = list_devices(Credentials(""), kToken);
  EXPECT_TRUE(with_token.ok()) << with_token.error_message();

  // The CLI: --tls_ca with --token_file succeeds, without a token it fails.
  auto cli = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> argv = {POWERSWEEP_CLI_BIN,
                                     "--controller=" + fleet.address(),
                                     "--tls_ca=" + Lab("ca.crt")};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("devices");
    Subprocess p(argv, fleet.dir() + "/" + name + ".log");
    const int status = p.Wait();
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                          p.Log());
  };
  auto [token_rc, token_out] =
      cli("cli-token", {"--token_file=" + token_file_});
  EXPECT_EQ(token_rc, 0) << token_out;
  EXPECT_THAT(token_out, HasSubstr("orin-01"));
  auto [op_rc, op_out] =
      cli("cli-operator", {"--tls_cert=" + Lab("operator-operator.crt"),
                           "--tls_key=" + Lab("operator-operator.key")});
  EXPECT_EQ(op_rc, 0) << op_out;
  auto [none_rc, none_out] = cli("cli-none", {});
  EXPECT_EQ(none_rc, 1) << none_out;
  EXPECT_THAT(none_out, HasSubstr("needs a bearer token"));
}

TEST_F(SecureFleetTest, PlaintextOnAReachableAddressIsRefused) {
  const std::string dir = MakeTempDir("powersweep-it");
  Subprocess controller({POWERSWEEP_CONTROLLER_BIN, "--listen=0.0.0.0:0",
                         "--db=" + dir + "/powersweep.db"},
                        dir + "/controller.log");
  const int status = controller.Wait();
  ASSERT_TRUE(WIFEXITED(status)) << controller.Log();
  EXPECT_EQ(WEXITSTATUS(status), 2) << controller.Log();
  EXPECT_THAT(controller.Log(), HasSubstr("--insecure"));
  EXPECT_THAT(controller.Log(), HasSubstr("--listen=0.0.0.0:0"));
  EXPECT_EQ(CountLines(controller.Log(), "\n"), 1) << controller.Log();
}

}  // namespace
}  // namespace powersweep::testing
