#include "agent/runtime/docker/container_config.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The value following `flag` in args ("" when absent), and how often the
// flag occurs.
std::string ValueOf(const std::vector<std::string>& args,
                    const std::string& flag) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == flag) return args[i + 1];
  }
  return "";
}
int CountOf(const std::vector<std::string>& args, const std::string& flag) {
  return static_cast<int>(std::count(args.begin(), args.end(), flag));
}

class RunArgsTest : public testing::Test {
 protected:
  RunArgsTest() {
    request_.image = "powersweep-workload:local";
    request_.read_only_mounts = {"/usr/share/datasets/fashion-mnist"};
    request_.device_id = "host-0";
    request_.run_id = 12;
    request_.attempt = 2;
    request_.tenant = 3;
    input_.name = ContainerName("ps", request_);
    input_.image_ref = "sha256:" + std::string(64, 'a');
    input_.requested_image = request_.image;
    input_.device_id = request_.device_id;
    input_.uid = 1000;
    input_.gid = 100;
    spec_.argv = {"/build/workloads/powersweep-workload",
                  "run",
                  "--dataset-path",
                  "/usr/share/datasets/fashion-mnist",
                  "--minibatches",
                  "5",
                  "--records-fd",
                  "3"};
    spec_.cpus = {0, 2, 3};
  }
  std::vector<std::string> Args() {
    absl::StatusOr<std::vector<std::string>> a =
        BuildDockerRunArgs(config_, request_, input_, spec_);
    EXPECT_TRUE(a.ok()) << a.status();
    return a.ok() ? *a : std::vector<std::string>{};
  }
  // The part after the image reference: the container's command line.
  std::vector<std::string> Command() {
    std::vector<std::string> a = Args();
    auto it = std::find(a.begin(), a.end(), input_.image_ref);
    if (it == a.end()) return {};
    return std::vector<std::string>(it + 1, a.end());
  }

  DockerRuntimeConfig config_;
  ContainerRequest request_;
  DockerRunInput input_;
  RuntimeSpec spec_;
};

TEST_F(RunArgsTest, RunsWithoutNetworkNeverPullsAndKeepsNoLogFile) {
  std::vector<std::string> a = Args();
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a[0], "run");
  EXPECT_EQ(ValueOf(a, "--network"), "none");
  EXPECT_EQ(CountOf(a, "--network"), 1);
  EXPECT_EQ(ValueOf(a, "--pull"), "never");
  EXPECT_EQ(ValueOf(a, "--log-driver"), "none");
  // Attached, not detached, and the container is kept until the runtime
  // has read its exit state and removes it.
  EXPECT_EQ(CountOf(a, "-d"), 0);
  EXPECT_EQ(CountOf(a, "--detach"), 0);
  EXPECT_EQ(CountOf(a, "--rm"), 0);
}

TEST_F(RunArgsTest, TheRunsCpusBecomeTheCpuset) {
  EXPECT_EQ(ValueOf(Args(), "--cpuset-cpus"), "0,2,3");
  spec_.cpus.clear();
  EXPECT_EQ(CountOf(Args(), "--cpuset-cpus"), 0);
  spec_.cpus = {1, -1};
  absl::StatusOr<std::vector<std::string>> a =
      BuildDockerRunArgs(config_, request_, input_, spec_);
  EXPECT_FALSE(a.ok());
}

TEST_F(RunArgsTest, MountsTheDatasetReadOnlyAtTheSamePath) {
  std::vector<std::string> a = Args();
  EXPECT_EQ(ValueOf(a, "--mount"),
            "type=bind,source=/usr/share/datasets/fashion-mnist,"
            "target=/usr/share/datasets/fashion-mnist,readonly");
  EXPECT_EQ(CountOf(a, "-v"), 0);
  EXPECT_EQ(CountOf(a, "--volume"), 0);
}

TEST_F(RunArgsTest, RefusesMountPathsTheMountSyntaxCannotCarry) {
  request_.read_only_mounts = {"data/relative"};
  absl::StatusOr<std::vector<std::string>> a =
      BuildDockerRunArgs(config_, request_, input_, spec_);
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(std::string(a.status().message()),
              HasSubstr("\"data/relative\" is not an absolute path"));
  request_.read_only_mounts = {"/data/a,readonly=false"};
  a = BuildDockerRunArgs(config_, request_, input_, spec_);
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(std::string(a.status().message()), HasSubstr("comma"));
}

TEST_F(RunArgsTest, NamesAndLabelsTheContainerPerDeviceRunAttemptTenant) {
  std::vector<std::string> a = Args();
  EXPECT_EQ(ValueOf(a, "--name"), "ps-host-0-r12-a2-t3");
  EXPECT_EQ(ValueOf(a, "--cgroup-parent"),
            "/powersweep-containers/ps-host-0-r12-a2-t3");
  std::vector<std::string> labels;
  for (size_t i = 0; i + 1 < a.size(); ++i) {
    if (a[i] == "--label") labels.push_back(a[i + 1]);
  }
  EXPECT_THAT(labels,
              ElementsAre("powersweep.managed=true", "powersweep.device=host-0",
                          "powersweep.image=powersweep-workload:local"));
}

TEST_F(RunArgsTest, RunsTheCheckedImageByIdWithInitAsTheAgentsUser) {
  std::vector<std::string> a = Args();
  EXPECT_EQ(CountOf(a, input_.image_ref), 1);
  EXPECT_EQ(CountOf(a, "--init"), 1);
  EXPECT_EQ(ValueOf(a, "--user"), "1000:100");
  config_.use_init = false;
  config_.run_as_agent_user = false;
  a = Args();
  EXPECT_EQ(CountOf(a, "--init"), 0);
  EXPECT_EQ(CountOf(a, "--user"), 0);
}

TEST_F(RunArgsTest, TheWorkloadRunsFromTheImageAndWritesRecordsToStdout) {
  EXPECT_THAT(Command(),
              ElementsAre("/usr/local/bin/powersweep-workload", "run",
                          "--dataset-path", "/usr/share/datasets/fashion-mnist",
                          "--minibatches", "5", "--records-fd", "1"));
  spec_.argv = {"/w", "run", "--records-fd=3"};
  EXPECT_THAT(Command(), ElementsAre("/usr/local/bin/powersweep-workload",
                                     "run", "--records-fd=1"));
  spec_.argv = {"/w", "run"};
  EXPECT_THAT(Command(), ElementsAre("/usr/local/bin/powersweep-workload",
                                     "run", "--records-fd", "1"));
}

TEST_F(RunArgsTest, EnvironmentAndRuntimeComeFromTheAgentsConfiguration) {
  EXPECT_EQ(CountOf(Args(), "--runtime"), 0);
  EXPECT_EQ(CountOf(Args(), "--env"), 0);
  config_.env = {"OMP_NUM_THREADS=2"};
  config_.oci_runtime = "nvidia";
  std::vector<std::string> a = Args();
  EXPECT_EQ(ValueOf(a, "--env"), "OMP_NUM_THREADS=2");
  EXPECT_EQ(ValueOf(a, "--runtime"), "nvidia");
}

TEST(ContainerNameTest, DeviceIdsAreMadeSafeForTheEngine) {
  ContainerRequest r;
  r.device_id = "lab/orin 1";
  r.run_id = 7;
  r.attempt = 1;
  r.tenant = 0;
  EXPECT_EQ(ContainerName("ps", r), "ps-lab_orin_1-r7-a1-t0");
  r.tenant = 1;
  EXPECT_EQ(ContainerName("ps", r), "ps-lab_orin_1-r7-a1-t1");
}

TEST(WorkloadImageTagTest, IsTheProvenanceFingerprintWithADash) {
  EXPECT_EQ(WorkloadImageTag("build-id:78570719a8513ad0"),
            "powersweep-workload:build-id-78570719a8513ad0");
  EXPECT_EQ(WorkloadImageTag("sha256:00ff"), "powersweep-workload:sha256-00ff");
}

TEST(ImageAllowlistTest, AcceptsListedTagsAndRefusesOthersNamingBoth) {
  const std::vector<std::string> allow = {"powersweep-workload:local",
                                          "lab.example:5000/ps/workload"};
  EXPECT_TRUE(CheckImageAllowed("powersweep-workload:local", "", allow).ok());
  // A bare name means :latest, on either side.
  EXPECT_TRUE(
      CheckImageAllowed("lab.example:5000/ps/workload:latest", "", allow).ok());
  absl::Status st = CheckImageAllowed("powersweep-workload", "", allow);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied);
  st = CheckImageAllowed("evil/miner:1", "", allow);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "image \"evil/miner:1\" is not in this agent's image allowlist "
            "[powersweep-workload:local, lab.example:5000/ps/workload]");
}

TEST(ImageAllowlistTest, AnImageIdEntryAcceptsAnyReferenceToThatImage) {
  const std::string id = "sha256:" + std::string(64, 'c');
  const std::vector<std::string> allow = {id};
  EXPECT_TRUE(AllowlistHasImageIds(allow));
  EXPECT_FALSE(AllowlistHasImageIds({"powersweep-workload:local"}));
  EXPECT_TRUE(CheckImageAllowed("anything:tag", id, allow).ok());
  EXPECT_TRUE(CheckImageAllowed(id, "", allow).ok());
  EXPECT_FALSE(
      CheckImageAllowed("anything:tag", "sha256:" + std::string(64, 'd'), allow)
          .ok());
  // Short ids are not ids: no prefix matching.
  EXPECT_FALSE(AllowlistHasImageIds({"sha256:cccc"}));
}

}  // namespace
}  // namespace powersweep
