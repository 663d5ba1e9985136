#include "common/power/mode_space.h"

#include <set>
#include <tuple>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ModeSpace Space(const std::string& cls, int device_cores = 0) {
  auto spec = FindBuiltInDeviceClass(cls);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return ModeSpace(*spec, device_cores);
}

// The "~29k power modes" of the SIGMETRICS study.
TEST(ModeSpaceTest, XavierAgxHas29232CustomModes) {
  const ModeSpace x = Space("xavier-agx");
  EXPECT_EQ(x.cores(), 8);
  EXPECT_EQ(x.spec().cpu_freqs_khz.size(), 29u);
  EXPECT_EQ(x.spec().gpu_freqs_hz.size(), 14u);
  EXPECT_EQ(x.spec().mem_freqs_hz.size(), 9u);
  EXPECT_EQ(x.Size(), 29232);
}

TEST(ModeSpaceTest, SizesOfTheOtherClassesFollowTheirTables) {
  EXPECT_EQ(Space("orin-agx").Size(), 12 * 29 * 11 * 3);
  EXPECT_EQ(Space("xavier-nx").Size(), 6 * 25 * 15 * 7);
  EXPECT_EQ(Space("nano").Size(), 4 * 15 * 12 * 7);
}

TEST(ModeSpaceTest, HostSpaceIsTheCoreCountsOfTheDevice) {
  const ModeSpace host = Space("host", 6);
  EXPECT_EQ(host.Size(), 6);
  auto m = host.At(5);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(*m, (CustomMode{6, 0, 0, 0}));
  EXPECT_EQ(Space("host").Size(), 0);
  EXPECT_EQ(Space("host").IndexOf(CustomMode{1, 0, 0, 0}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ModeSpaceTest, EveryXavierIndexRoundTripsToADistinctMode) {
  const ModeSpace x = Space("xavier-agx");
  std::set<std::tuple<int, int64_t, int64_t, int64_t>> seen;
  int64_t i = 0;
  x.ForEach([&](const CustomMode& m) {
    auto back = x.IndexOf(m);
    EXPECT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back.value_or(-1), i);
    EXPECT_TRUE(x.Check(m).ok());
    seen.insert({m.cpu_cores, m.cpu_freq_khz, m.gpu_freq_hz, m.mem_freq_hz});
    ++i;
    return true;
  });
  EXPECT_EQ(i, 29232);
  EXPECT_EQ(seen.size(), 29232u);
}

TEST(ModeSpaceTest, FirstAndLastModesAreTheTableEnds) {
  const ModeSpace x = Space("xavier-agx");
  EXPECT_EQ(*x.At(0), (CustomMode{1, 115200, 114750000, 204000000}));
  EXPECT_EQ(*x.At(1), (CustomMode{1, 115200, 114750000, 408000000}));
  EXPECT_EQ(*x.At(29231), (CustomMode{8, 2265600, 1377000000, 2133000000}));
  EXPECT_EQ(x.At(29232).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(x.At(-1).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(ModeSpaceTest, IndexOfRejectsValuesOffTheTableNamingTheNeighbours) {
  const ModeSpace x = Space("xavier-agx");
  auto idx = x.IndexOf(CustomMode{8, 1200000, 1377000000, 2133000000});
  ASSERT_FALSE(idx.ok());
  EXPECT_THAT(idx.status().message(),
              HasSubstr("cpu_freq_khz: 1200000 is not a frequency of "
                        "xavier-agx (nearest: 1190400, 1267200)"));
  idx = x.IndexOf(CustomMode{8, 0, 1377000000, 2133000000});
  ASSERT_FALSE(idx.ok());
  EXPECT_THAT(idx.status().message(),
              HasSubstr("cpu_freq_khz: must be set to index a mode"));
}

TEST(ModeSpaceTest, ProblemsNameTheNearestValidValues) {
  const ModeSpace x = Space("xavier-agx");
  EXPECT_THAT(x.Problems(CustomMode{0, 100000, 500000000, 3000000000}),
              ElementsAre("cpu_freq_khz: 100000 is not a frequency of "
                          "xavier-agx (nearest: 115200)",
                          "gpu_freq_hz: 500000000 is not a frequency of "
                          "xavier-agx (nearest: 420750000, 522750000)",
                          "mem_freq_hz: 3000000000 is not a frequency of "
                          "xavier-agx (nearest: 2133000000)"));
  EXPECT_THAT(Space("orin-agx").Problems(CustomMode{16, 0, 0, 0}),
              ElementsAre("cpu_cores: 16 is more than the 12 cores of "
                          "orin-agx"));
  EXPECT_THAT(Space("host", 4).Problems(CustomMode{-1, 1200000, 0, 0}),
              ElementsAre("cpu_cores: must not be negative (0 leaves it as "
                          "the device has it), got -1",
                          "cpu_freq_khz: not settable on class host in this "
                          "version"));
  EXPECT_THAT(x.Problems(CustomMode{4, 1190400, 0, 1600000000}), IsEmpty());
  const absl::Status st = x.Check(CustomMode{9, 0, 0, 0});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
}

TEST(ModeSpaceTest, ClosestValuePicksTheNearerNeighbour) {
  const std::vector<int64_t> t = {100, 200, 400};
  EXPECT_EQ(ClosestValue(t, 140), 100);
  EXPECT_EQ(ClosestValue(t, 150), 100);  // tie: the lower one
  EXPECT_EQ(ClosestValue(t, 160), 200);
  EXPECT_EQ(ClosestValue(t, 900), 400);
  EXPECT_EQ(ClosestValue({}, 5), 0);
  EXPECT_THAT(NearestValues(t, 200), ElementsAre(200));
  EXPECT_THAT(NearestValues(t, 50), ElementsAre(100));
}

TEST(ModeSpaceTest, UnknownClassListsTheKnownOnes) {
  auto spec = FindBuiltInDeviceClass("tx2");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(spec.status().message(),
            "unknown device class 'tx2' (known: host, nano, orin-agx, "
            "orin-nano, orin-nx, thor, xavier-agx, xavier-nx)");
}

TEST(ModeSpaceTest, CustomTablesAreSortedAndDeduplicated) {
  const ModeSpace s(DeviceClassSpec{"toy", 2, {0}, {300, 100, 300}, {}, {}});
  EXPECT_THAT(s.spec().cpu_freqs_khz, ElementsAre(100, 300));
  EXPECT_EQ(s.Size(), 4);
  EXPECT_EQ(*s.At(3), (CustomMode{2, 300, 0, 0}));
}

}  // namespace
}  // namespace powersweep
