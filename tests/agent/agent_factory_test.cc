// MakeAgent: what powersweep-agent runs with for each --platform, and the
// errors that name the flag at fault.
#include "agent/agent_factory.h"

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "agent/run/capabilities.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_dir.h"

namespace powersweep {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Options that touch nothing of this machine's but a fresh work dir.
AgentOptions Options(const std::string& platform) {
  AgentOptions o;
  o.platform = platform;
  o.device_id = "dev-" + platform;
  o.workload_bin = FAKE_WORKLOAD;
  o.datasets = {"mnist=/data/mnist"};
  o.work_dir = MakeTestDir("agent_factory_" + platform) + "/state";
  return o;
}

// A private copy of a fixture board (tests/fixtures/sysfs/<name>).
std::string CopyBoard(const std::string& name) {
  const std::string root = MakeTestDir("agent_factory_" + name) + "/root";
  fs::copy(std::string(FIXTURES_DIR) + "/sysfs/" + name, root,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return root;
}

bool IsPrivateDir(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
         (st.st_mode & 0777) == 0700;
}

TEST(AgentFactory, HostRunsTheWorkloadBinaryOnItsDatasets) {
  RealClock clock;
  const AgentOptions o = Options("host");
  auto agent = MakeAgent(o, &clock);
  ASSERT_TRUE(agent.ok()) << agent.status();
  const Agent& a = **agent;
  EXPECT_EQ(a.platform->Identity().platform(), "host");
  EXPECT_EQ(a.platform->Identity().device_id(), "dev-host");
  EXPECT_EQ(a.workload_bin, FAKE_WORKLOAD);
  EXPECT_EQ(a.catalog.datasets.at("mnist"), "/data/mnist");
  EXPECT_EQ(a.engine, nullptr);  // no --container_images
  EXPECT_TRUE(static_cast<bool>(a.runtimes));
  EXPECT_EQ(a.work_dir, o.work_dir);
  EXPECT_TRUE(IsPrivateDir(a.work_dir));
  const v1::DeviceCapabilities caps = AgentCapabilities(*a.platform, a.catalog);
  EXPECT_GT(caps.cpu_cores(), 0);
  EXPECT_THAT(caps.runtimes(), ElementsAre(v1::RUNTIME_NATIVE));
  // `synthetic` is offered whatever --dataset says (no directory).
  EXPECT_THAT(caps.datasets(), ElementsAre("mnist", "synthetic"));
}

TEST(AgentFactory, TwinServesItsOwnCatalogWithoutAWorkloadBinary) {
  RealClock clock;
  AgentOptions o = Options("twin");
  o.workload_bin = "/nonexistent/powersweep-workload";  // never needed
  o.device_class = "xavier-nx";
  auto agent = MakeAgent(o, &clock);
  ASSERT_TRUE(agent.ok()) << agent.status();
  const Agent& a = **agent;
  EXPECT_EQ(a.platform->Identity().platform(), "twin");
  EXPECT_EQ(a.platform->Identity().device_class(), "xavier-nx");
  // The twin's data sets replace --dataset; nothing is read from disk.
  EXPECT_EQ(a.catalog.datasets.count("mnist"), 1u);
  EXPECT_EQ(a.catalog.datasets.at("cifar10"), "twin:cifar10");
  EXPECT_EQ(a.catalog.datasets.at("synthetic"), "twin:synthetic");
  EXPECT_EQ(a.workload_bin, "twin-model");
  EXPECT_TRUE(static_cast<bool>(a.runtimes));
  EXPECT_TRUE(IsPrivateDir(a.work_dir));
  const v1::DeviceCapabilities caps = AgentCapabilities(*a.platform, a.catalog);
  EXPECT_EQ(caps.cpu_cores(), 6);
  EXPECT_THAT(caps.runtimes(), ElementsAre(v1::RUNTIME_NATIVE));
}

TEST(AgentFactory, JetsonDiscoversTheBoardUnderSysfsRoot) {
  RealClock clock;
  AgentOptions o = Options("jetson");
  o.sysfs_root = CopyBoard("orin-agx-jp5");
  auto agent = MakeAgent(o, &clock);
  ASSERT_TRUE(agent.ok()) << agent.status();
  const Agent& a = **agent;
  EXPECT_EQ(a.platform->Identity().platform(), "jetson");
  EXPECT_EQ(a.platform->Identity().device_class(), "orin-agx");
  const v1::DeviceCapabilities caps = a.platform->Capabilities();
  EXPECT_EQ(caps.cpu_cores(), 12);
  EXPECT_GT(caps.gpu_freqs_hz_size(), 0);
  EXPECT_GT(caps.mem_freqs_hz_size(), 0);
  EXPECT_TRUE(static_cast<bool>(a.runtimes));
  EXPECT_TRUE(IsPrivateDir(a.work_dir));
  // Nothing was applied, so the board's state was not saved.
  EXPECT_FALSE(fs::exists(a.work_dir + "/jetson-restore.json"));
}

TEST(AgentFactory, ProbePreparesNothingBeyondThePlatform) {
  RealClock clock;
  AgentOptions o = Options("host");
  o.probe = true;
  o.workload_bin = "/nonexistent/powersweep-workload";
  auto agent = MakeAgent(o, &clock);
  ASSERT_TRUE(agent.ok()) << agent.status();
  EXPECT_NE((*agent)->platform, nullptr);
  EXPECT_FALSE(static_cast<bool>((*agent)->runtimes));
  EXPECT_EQ((*agent)->work_dir, "");
  EXPECT_FALSE(fs::exists(o.work_dir));
}

TEST(AgentFactory, DefaultWorkloadIsFoundInstalledOrInTheBuildTree) {
  RealClock clock;
  // The build tree: build/agent/powersweep-agent and
  // build/workloads/powersweep-workload.
  const std::string build = MakeTestDir("agent_factory_build_tree");
  fs::create_directories(build + "/agent");
  fs::create_directories(build + "/workloads");
  fs::copy_file(FAKE_WORKLOAD, build + "/workloads/powersweep-workload");
  AgentOptions o = Options("host");
  o.workload_bin.clear();
  o.default_workload_dir = build + "/agent";
  auto agent = MakeAgent(o, &clock);
  ASSERT_TRUE(agent.ok()) << agent.status();
  EXPECT_EQ((*agent)->workload_bin,
            build + "/agent/../workloads/powersweep-workload");
  // Installed: next to the agent wins.
  fs::copy_file(FAKE_WORKLOAD, build + "/agent/powersweep-workload");
  o.work_dir += "-2";
  agent = MakeAgent(o, &clock);
  ASSERT_TRUE(agent.ok()) << agent.status();
  EXPECT_EQ((*agent)->workload_bin, build + "/agent/powersweep-workload");
  // Neither: the error names both places it looked.
  o.default_workload_dir = build + "/nowhere";
  o.work_dir += "-3";
  agent = MakeAgent(o, &clock);
  ASSERT_FALSE(agent.ok());
  EXPECT_THAT(std::string(agent.status().message()),
              HasSubstr("--workload_bin: " + build +
                        "/nowhere/powersweep-workload or " + build +
                        "/nowhere/../workloads/powersweep-workload"));
}

TEST(AgentFactory, SysfsRootWithoutTheJetsonPlatformIsRefused) {
  RealClock clock;
  for (const bool probe : {false, true}) {
    AgentOptions o = Options("host");
    o.probe = probe;
    o.sysfs_root = std::string(FIXTURES_DIR) + "/sysfs/orin-agx-jp6";
    auto agent = MakeAgent(o, &clock);
    ASSERT_FALSE(agent.ok()) << "probe " << probe;
    EXPECT_EQ(agent.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(agent.status().message()),
                HasSubstr("--sysfs_root: only the jetson platform reads a "
                          "sysfs tree, and --platform is host (add "
                          "--platform=jetson)"));
  }
}

TEST(AgentFactory, ErrorsNameTheFlagAtFault) {
  RealClock clock;
  AgentOptions o = Options("desktop");
  auto agent = MakeAgent(o, &clock);
  ASSERT_FALSE(agent.ok());
  EXPECT_EQ(agent.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(agent.status().message()),
              HasSubstr("--platform: unknown platform \"desktop\""));

  o = Options("twin");
  o.device_class = "pi-zero";
  agent = MakeAgent(o, &clock);
  ASSERT_FALSE(agent.ok());
  EXPECT_THAT(std::string(agent.status().message()),
              HasSubstr("--device_class: \"pi-zero\" is not a twin class"));

  o = Options("host");
  o.workload_bin = "/nonexistent/powersweep-workload";
  agent = MakeAgent(o, &clock);
  ASSERT_FALSE(agent.ok());
  EXPECT_THAT(std::string(agent.status().message()),
              HasSubstr("--workload_bin: /nonexistent/powersweep-workload"));

  o = Options("host");
  o.datasets = {"mnist"};
  agent = MakeAgent(o, &clock);
  ASSERT_FALSE(agent.ok());
  EXPECT_THAT(std::string(agent.status().message()),
              HasSubstr("--dataset: expected NAME=PATH, got \"mnist\""));

  o = Options("jetson");
  o.sysfs_root = MakeTestDir("agent_factory_not_a_jetson");
  agent = MakeAgent(o, &clock);
  ASSERT_FALSE(agent.ok());
  EXPECT_EQ(agent.status().code(), absl::StatusCode::kFailedPrecondition);
  // The file it looked for, under the given --sysfs_root.
  EXPECT_THAT(std::string(agent.status().message()), HasSubstr(o.sysfs_root));
  EXPECT_THAT(std::string(agent.status().message()),
              HasSubstr("not a supported Jetson"));
}

}  // namespace
}  // namespace powersweep
