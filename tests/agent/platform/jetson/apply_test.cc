// Applying custom modes and presets: exact write order, file contents,
// read-back of clamped values, missing and unwritable knobs.

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/rig.h"

namespace powersweep {
namespace jetson {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kCpu[] = "/sys/devices/system/cpu";
constexpr char kEmc[] = "/sys/kernel/debug/bpmp/debug/clk/emc";
constexpr char kOrinGpu[] = "/sys/class/devfreq/17000000.ga10b";
constexpr char kXavierGpu[] = "/sys/class/devfreq/17000000.gv11b";

std::string Online(int cpu, int v) {
  return absl::StrCat(kCpu, "/cpu", cpu, "/online=", v);
}
std::string CpuFreq(int cpu, const char* file, int64_t v) {
  return absl::StrCat(kCpu, "/cpu", cpu, "/cpufreq/", file, "=", v);
}
std::string At(const std::string& dir, const char* file, const std::string& v) {
  return absl::StrCat(dir, "/", file, "=", v);
}
// The whole expected sequence of cpuN/online writes for `cores` of `n`.
std::vector<std::string> Cores(int cores, int n) {
  std::vector<std::string> out;
  for (int c = 1; c < n; ++c) out.push_back(Online(c, c < cores ? 1 : 0));
  return out;
}
void Append(std::vector<std::string>* a, const std::vector<std::string>& b) {
  a->insert(a->end(), b.begin(), b.end());
}

TEST(JetsonApplyTest, OrinAgxCustomModeWritesEveryKnobInOrder) {
  auto rig = MakeRig("orin-agx-jp5");
  const int64_t t0 = rig->clock.MonotonicNanos();
  auto applied =
      rig->platform->Apply(Mode(4, 729600, 408000000, 2133000000));
  ASSERT_TRUE(applied.ok()) << applied.status();

  std::vector<std::string> want = Cores(4, 12);
  Append(&want, {CpuFreq(0, "scaling_max_freq", 729600),
                 CpuFreq(0, "scaling_min_freq", 729600),
                 At(kOrinGpu, "device/power/control", "on"),
                 At(kOrinGpu, "max_freq", "408000000"),
                 At(kOrinGpu, "min_freq", "408000000"),
                 At(kOrinGpu, "device/power/control", "auto"),
                 At(kEmc, "mrq_rate_locked", "1"), At(kEmc, "state", "1"),
                 At(kEmc, "rate", "2133000000")});
  EXPECT_THAT(rig->Writes(), ElementsAreArray(want));

  // The tree holds the mode; the offline clusters were left alone.
  EXPECT_EQ(rig->File("/sys/devices/system/cpu/cpu4/online"), "0");
  EXPECT_EQ(rig->File("/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"),
            "729600");
  EXPECT_EQ(rig->File("/sys/devices/system/cpu/cpufreq/policy4/scaling_min_freq"),
            "115200");
  const std::string gpu = "/sys/devices/17000000.ga10b/devfreq/17000000.ga10b";
  EXPECT_EQ(rig->File(gpu + "/min_freq"), "408000000");
  EXPECT_EQ(rig->File(gpu + "/max_freq"), "408000000");
  EXPECT_EQ(rig->File("/sys/devices/17000000.ga10b/power/control"), "auto");
  EXPECT_EQ(rig->File(std::string(kEmc) + "/mrq_rate_locked"), "1");

  const v1::PowerMode& actual = applied->actual();
  EXPECT_EQ(actual.cpu_cores(), 4);
  EXPECT_EQ(actual.cpu_freq_khz(), 729600);
  EXPECT_EQ(actual.gpu_freq_hz(), 408000000);
  EXPECT_EQ(actual.mem_freq_hz(), 2133000000);
  EXPECT_THAT(applied->notes(), IsEmpty());
  EXPECT_EQ(applied->cpu_freq_provenance(), v1::PROVENANCE_MEASURED);
  EXPECT_THAT(rig->platform->RunCpus(), ElementsAre(0, 1, 2, 3));
  // Everything matched at once: the wait is one poll (10 ms), enough for
  // the documented EMC latency (8 ms) and a second, equal reading.
  EXPECT_EQ(rig->clock.MonotonicNanos() - t0, 10000000);
  EXPECT_DOUBLE_EQ(applied->settle_s(), 0.01);
}

TEST(JetsonApplyTest, OrinAgxLoweringWritesMinFirstAndRaisingMaxFirst) {
  auto rig = MakeRig("orin-agx-jp5");
  ASSERT_TRUE(rig->platform->Apply(Mode(12, 2201600, 1300500000, 3199000000))
                  .ok());
  rig->io->ClearWrites();
  auto lowered = rig->platform->Apply(Mode(8, 1113600, 306000000, 204000000));
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  std::vector<std::string> want = Cores(8, 12);
  Append(&want, {CpuFreq(0, "scaling_min_freq", 1113600),
                 CpuFreq(0, "scaling_max_freq", 1113600),
                 CpuFreq(4, "scaling_min_freq", 1113600),
                 CpuFreq(4, "scaling_max_freq", 1113600),
                 At(kOrinGpu, "device/power/control", "on"),
                 At(kOrinGpu, "min_freq", "306000000"),
                 At(kOrinGpu, "max_freq", "306000000"),
                 At(kOrinGpu, "device/power/control", "auto"),
                 At(kEmc, "mrq_rate_locked", "1"), At(kEmc, "state", "1"),
                 At(kEmc, "rate", "204000000")});
  EXPECT_THAT(rig->Writes(), ElementsAreArray(want));
  EXPECT_EQ(lowered->actual().cpu_freq_khz(), 1113600);
  EXPECT_EQ(lowered->actual().gpu_freq_hz(), 306000000);

  rig->io->ClearWrites();
  auto raised = rig->platform->Apply(Mode(12, 2201600, 1300500000, 0));
  ASSERT_TRUE(raised.ok()) << raised.status();
  want = Cores(12, 12);
  for (int head : {0, 4, 8}) {
    Append(&want, {CpuFreq(head, "scaling_max_freq", 2201600),
                   CpuFreq(head, "scaling_min_freq", 2201600)});
  }
  Append(&want, {At(kOrinGpu, "device/power/control", "on"),
                 At(kOrinGpu, "max_freq", "1300500000"),
                 At(kOrinGpu, "min_freq", "1300500000"),
                 At(kOrinGpu, "device/power/control", "auto")});
  EXPECT_THAT(rig->Writes(), ElementsAreArray(want));
  EXPECT_EQ(raised->actual().cpu_cores(), 12);
  EXPECT_EQ(raised->actual().gpu_freq_hz(), 1300500000);
  EXPECT_EQ(raised->actual().mem_freq_hz(), 204000000);  // left as set
}

TEST(JetsonApplyTest, XavierAgxRaisingAndLoweringOnAJetPack4Kernel) {
  auto rig = MakeRig("xavier-agx-jp4");
  auto low = rig->platform->Apply(Mode(2, 1190400, 318750000, 665600000));
  ASSERT_TRUE(low.ok()) << low.status();
  EXPECT_EQ(rig->File("/sys/devices/system/cpu/cpu2/online"), "0");
  EXPECT_EQ(low->actual().mem_freq_hz(), 665600000);

  rig->io->ClearWrites();
  auto high = rig->platform->Apply(Mode(8, 2265600, 1377000000, 2133000000));
  ASSERT_TRUE(high.ok()) << high.status();
  std::vector<std::string> want = Cores(8, 8);
  for (int head : {0, 2, 4, 6}) {
    Append(&want, {CpuFreq(head, "scaling_max_freq", 2265600),
                   CpuFreq(head, "scaling_min_freq", 2265600)});
  }
  Append(&want, {At(kXavierGpu, "device/power/control", "on"),
                 At(kXavierGpu, "max_freq", "1377000000"),
                 At(kXavierGpu, "min_freq", "1377000000"),
                 At(kXavierGpu, "device/power/control", "auto"),
                 At(kEmc, "mrq_rate_locked", "1"), At(kEmc, "state", "1"),
                 At(kEmc, "rate", "2133000000")});
  EXPECT_THAT(rig->Writes(), ElementsAreArray(want));
  EXPECT_EQ(high->actual().cpu_freq_khz(), 2265600);

  // Lowering with cores left as they are: min before max everywhere.
  rig->io->ClearWrites();
  auto lower = rig->platform->Apply(Mode(0, 422400, 114750000, 0));
  ASSERT_TRUE(lower.ok()) << lower.status();
  want.clear();
  for (int head : {0, 2, 4, 6}) {
    Append(&want, {CpuFreq(head, "scaling_min_freq", 422400),
                   CpuFreq(head, "scaling_max_freq", 422400)});
  }
  Append(&want, {At(kXavierGpu, "device/power/control", "on"),
                 At(kXavierGpu, "min_freq", "114750000"),
                 At(kXavierGpu, "max_freq", "114750000"),
                 At(kXavierGpu, "device/power/control", "auto")});
  EXPECT_THAT(rig->Writes(), ElementsAreArray(want));
  EXPECT_EQ(lower->actual().cpu_cores(), 8);
  EXPECT_EQ(lower->actual().cpu_freq_khz(), 422400);
}

TEST(JetsonApplyTest, ClampedValuesAreReportedAfterABoundedWait) {
  JetsonPlatformOptions opts;
  opts.settle.timeout = absl::Milliseconds(200);
  opts.settle.poll = absl::Milliseconds(10);
  auto rig = MakeRig("orin-agx-jp5", opts);
  rig->io->CapFrequency("/sys/devices/system/cpu/cpu0/cpufreq", 1728000);
  rig->io->CapFrequency(kEmc, 2133000000);
  const int64_t t0 = rig->clock.MonotonicNanos();
  auto applied = rig->platform->Apply(Mode(12, 2201600, 0, 3199000000));
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->requested().cpu_freq_khz(), 2201600);
  EXPECT_EQ(applied->actual().cpu_freq_khz(), 1728000);
  EXPECT_EQ(applied->actual().mem_freq_hz(), 2133000000);
  ASSERT_EQ(applied->notes_size(), 2);
  EXPECT_THAT(applied->notes(0), HasSubstr("cpu_freq_khz"));
  EXPECT_THAT(applied->notes(0), HasSubstr("cpu0-3 runs 1728000 kHz"));
  EXPECT_THAT(applied->notes(1), HasSubstr("mem_freq_hz"));
  EXPECT_THAT(applied->notes(1), HasSubstr("2133000000"));
  const int64_t waited = rig->clock.MonotonicNanos() - t0;
  EXPECT_GE(waited, absl::ToInt64Nanoseconds(absl::Milliseconds(200)));
  EXPECT_LE(waited, absl::ToInt64Nanoseconds(absl::Milliseconds(210)));
}

// After the writes the platform waits until the clocks read back as planned
// twice in a row and at least the documented latency of the slowest knob
// written (EMC 8 ms, GPU 5 ms, CPU 1 ms) has passed; the wait is recorded.
TEST(JetsonApplyTest, SettleWaitsForStableClocksAndTheDocumentedLatency) {
  JetsonPlatformOptions opts;
  opts.settle.poll = absl::Milliseconds(1);
  auto rig = MakeRig("orin-agx-jp5", opts);
  auto emc = rig->platform->Apply(Mode(0, 0, 612000000, 2133000000));
  ASSERT_TRUE(emc.ok()) << emc.status();
  EXPECT_GE(emc->settle_s(), 0.008);
  EXPECT_LT(emc->settle_s(), 0.010);
  auto gpu = rig->platform->Apply(Mode(0, 0, 408000000, 0));
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  EXPECT_GE(gpu->settle_s(), 0.005);
  EXPECT_LT(gpu->settle_s(), 0.007);
  auto nothing = rig->platform->Apply(Mode(0, 0, 0, 0));
  ASSERT_TRUE(nothing.ok()) << nothing.status();
  EXPECT_EQ(nothing->settle_s(), 0);
}

TEST(JetsonApplyTest, PresetsNeedAResolver) {
  auto rig = MakeRig("xavier-agx-jp5");
  v1::PowerMode preset;
  preset.set_preset("MODE_15W");
  auto applied = rig->platform->Apply(preset);
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(applied.status().message()),
              HasSubstr("preset: \"MODE_15W\""));
  EXPECT_THAT(rig->Writes(), IsEmpty());
}

TEST(JetsonApplyTest, ResolvedPresetIsAppliedWithValuesSnappedToTheTables) {
  JetsonPlatformOptions opts;
  opts.presets = [](const std::string& name) -> absl::StatusOr<v1::PowerMode> {
    if (name != "MODE_10W") {
      return absl::NotFoundError("no such mode in nvpmodel.conf");
    }
    // Xavier AGX MODE_10W: cores 0-1, CPU 1200000, GPU max 520000000, EMC
    // max 1065600000 (values as nvpmodel.conf gives them).
    return Mode(2, 1200000, 520000000, 1065600000);
  };
  auto rig = MakeRig("xavier-agx-jp5", opts);
  v1::PowerMode preset;
  preset.set_preset("MODE_10W");
  auto applied = rig->platform->Apply(preset);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().preset(), "MODE_10W");
  EXPECT_EQ(applied->actual().cpu_cores(), 2);
  EXPECT_EQ(applied->actual().cpu_freq_khz(), 1190400);
  EXPECT_EQ(applied->actual().gpu_freq_hz(), 420750000);
  EXPECT_EQ(applied->actual().mem_freq_hz(), 1065600000);
  EXPECT_THAT(applied->notes(),
              ElementsAre(HasSubstr("cpu_freq_khz: preset value 1200000"),
                          HasSubstr("gpu_freq_hz: preset value 520000000")));
  preset.set_preset("MODE_99W");
  auto unknown = rig->platform->Apply(preset);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("preset: \"MODE_99W\": no such mode"));
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
