// Apply errors: knobs that are missing (no debugfs) or not writable (not
// root), values outside the board's tables, and a write failing midway.
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/rig.h"

namespace powersweep {
namespace jetson {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kOrinGpu[] = "/sys/class/devfreq/17000000.ga10b";

TEST(JetsonApplyTest, MissingDebugfsIsAnErrorNamingTheEmcFile) {
  const std::string root = CopyFixture("xavier-nx-jp5");
  std::filesystem::remove_all(root + "/sys/kernel/debug");  // secure boot
  auto rig = MakeRig("", {}, root);
  EXPECT_EQ(rig->platform->Capabilities().mem_freqs_hz_size(), 0);
  auto applied = rig->platform->Apply(Mode(0, 0, 0, 1600000000));
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(applied.status().message()),
              HasSubstr("mem_freq_hz"));
  EXPECT_THAT(std::string(applied.status().message()),
              HasSubstr("/sys/kernel/debug/bpmp/debug/clk/emc/rate"));
  EXPECT_THAT(rig->Writes(), IsEmpty());
  // The other knobs still work, and the missing EMC is said.
  auto cpu_only = rig->platform->Apply(Mode(4, 1190400, 0, 0));
  ASSERT_TRUE(cpu_only.ok()) << cpu_only.status();
  EXPECT_EQ(cpu_only->actual().mem_freq_hz(), 0);
  EXPECT_THAT(cpu_only->notes(), ElementsAre(HasSubstr("EMC not readable")));
}

TEST(JetsonApplyTest, NanoHasNoEmcKnob) {
  auto rig = MakeRig("nano-jp4");
  auto applied = rig->platform->Apply(Mode(2, 921600, 0, 1600000000));
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(applied.status().message()),
              HasSubstr("/sys/kernel/debug/bpmp/debug/clk/emc/rate"));
  EXPECT_THAT(rig->Writes(), IsEmpty());
}

TEST(JetsonApplyTest, NotRootIsAnErrorNamingTheFileAndWritesNothing) {
  const std::string root = CopyFixture("orin-agx-jp5");
  FakeClock clock;
  JetsonPlatformOptions opts;
  opts.sysfs_root = root;
  auto platform = JetsonPlatform::Create(opts, &clock);  // RealSysfsIo
  ASSERT_TRUE(platform.ok()) << platform.status();
  EXPECT_EXIT(
      {
        if (geteuid() == 0 && setuid(65534) != 0) _exit(3);
        auto applied = (*platform)->Apply(Mode(4, 729600, 0, 0));
        const std::string msg(applied.status().message());
        _exit(!applied.ok() &&
                      applied.status().code() ==
                          absl::StatusCode::kFailedPrecondition &&
                      msg.find("/sys/devices/system/cpu/cpu1/online") !=
                          std::string::npos &&
                      msg.find("not writable") != std::string::npos
                  ? 0
                  : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(FileText(root, "/sys/devices/system/cpu/cpu11/online"), "1");
}

TEST(JetsonApplyTest, AFailedWriteMidwayPutsTheBoardBack) {
  auto rig = MakeRig("orin-agx-jp5");
  rig->io->FailPath(std::string(kOrinGpu) + "/max_freq",
                    absl::InvalidArgumentError("max_freq: EBUSY"),
                    /*write_only=*/true);
  auto applied = rig->platform->Apply(Mode(4, 729600, 408000000, 0));
  ASSERT_FALSE(applied.ok());
  EXPECT_THAT(std::string(applied.status().message()),
              HasSubstr("previous mode was restored"));
  EXPECT_EQ(rig->File("/sys/devices/system/cpu/cpu11/online"), "1");
  EXPECT_EQ(rig->File("/sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq"),
            "115200");
  EXPECT_EQ(rig->File("/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"),
            "2201600");
  EXPECT_EQ(rig->File("/sys/devices/17000000.ga10b/power/control"), "auto");
  EXPECT_EQ(rig->platform->RunCpus().size(), 12u);
}

TEST(JetsonApplyTest, ValuesNotInTheTablesNameTheFieldAndNearestValues) {
  auto rig = MakeRig("orin-agx-jp5");
  auto cpu = rig->platform->Apply(Mode(4, 2200000, 0, 0));
  EXPECT_EQ(cpu.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(cpu.status().message()),
              HasSubstr("cpu_freq_khz: 2200000 kHz"));
  EXPECT_THAT(std::string(cpu.status().message()), HasSubstr("2188800, 2201600"));
  auto gpu = rig->platform->Apply(Mode(0, 0, 1000000, 0));
  EXPECT_THAT(std::string(gpu.status().message()),
              HasSubstr("gpu_freq_hz: 1000000 Hz"));
  EXPECT_THAT(std::string(gpu.status().message()), HasSubstr("valid: 306000000"));
  auto mem = rig->platform->Apply(Mode(0, 0, 0, 1600000000));
  EXPECT_THAT(std::string(mem.status().message()),
              HasSubstr("mem_freq_hz: 1600000000 Hz"));
  EXPECT_THAT(std::string(mem.status().message()),
              HasSubstr("204000000, 2133000000"));
  auto cores = rig->platform->Apply(Mode(13, 0, 0, 0));
  EXPECT_EQ(cores.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(cores.status().message()), HasSubstr("cpu_cores: 13"));
  EXPECT_THAT(rig->Writes(), IsEmpty());
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
