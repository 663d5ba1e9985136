// Placement on device instances: `devices` and `placement: every_device`
// are checked against the known devices, expand into runs placed on each
// device with repetitions interleaved, and settle blocks are checked and
// carried by every run.
#include "controller/sweep/placement.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "controller/sweep/expand.h"
#include "controller/sweep/sweep_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/sweep/validate_test_util.h"

namespace powersweep {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_util::Device;
using testing_util::Problems;

// Four Xavier AGX (three connected) and a Nano.
ValidationContext Fleet() {
  ValidationContext ctx;
  for (const char* id : {"xa-02", "xa-01", "xa-03", "xa-04"}) {
    v1::DeviceStatus d = Device(id, "xavier-agx", 8, {v1::RUNTIME_NATIVE});
    d.set_connected(std::string(id) != "xa-04");
    ctx.known_devices.push_back(d);
  }
  v1::DeviceStatus nano = Device("nano-01", "nano", 4, {v1::RUNTIME_NATIVE});
  nano.set_connected(true);
  ctx.known_devices.push_back(nano);
  return ctx;
}

v1::SweepSpec Study() {
  v1::SweepSpec s;
  s.set_name("variability");
  s.add_device_classes("xavier-agx");
  s.add_models("lenet5");
  s.add_datasets("fashion-mnist");
  s.add_batch_sizes(32);
  s.add_batch_sizes(64);
  s.set_repetitions(3);
  s.set_epochs(1);
  return WithDefaults(s);
}

TEST(PlacementTest, EveryDevicePutsEveryCellOnEveryConnectedDeviceRepTimes) {
  v1::SweepSpec spec = Study();
  spec.set_placement(v1::PLACEMENT_EVERY_DEVICE);
  const ValidationContext ctx = Fleet();
  EXPECT_THAT(Problems(spec, ctx), IsEmpty());
  const DevicePlacement placement =
      ResolvePlacement(spec, ctx.known_devices, nullptr);
  // Connected ones only, in id order: xa-04 is not connected.
  EXPECT_THAT(placement.devices.at("xavier-agx"),
              ElementsAre("xa-01", "xa-02", "xa-03"));
  const std::vector<v1::RunSpec> runs = ExpandSweep(spec, placement);
  ASSERT_EQ(static_cast<int64_t>(runs.size()), CountRuns(spec, placement));
  ASSERT_EQ(runs.size(), 2u * 3u * 3u);  // 2 cells x 3 devices x 3 reps
  std::map<std::pair<std::string, int32_t>, int> per_device_cell;
  for (const v1::RunSpec& r : runs) {
    ASSERT_EQ(r.devices_size(), 1);
    ++per_device_cell[{r.devices(0), r.workload().batch_size()}];
  }
  ASSERT_EQ(per_device_cell.size(), 6u);
  for (const auto& [key, n] : per_device_cell) EXPECT_EQ(n, 3) << key.first;
}

TEST(PlacementTest, RepetitionsAreInterleavedAcrossDevices) {
  v1::SweepSpec spec = Study();
  spec.set_placement(v1::PLACEMENT_EVERY_DEVICE);
  spec.add_devices("xa-03");
  spec.add_devices("xa-01");
  const ValidationContext ctx = Fleet();
  const std::vector<v1::RunSpec> runs =
      ExpandSweep(spec, ResolvePlacement(spec, ctx.known_devices, nullptr));
  // The queue order (run ids follow it): repetition outermost, the device
  // fastest, in the order listed.
  std::vector<std::string> order;
  for (const v1::RunSpec& r : runs) {
    order.push_back(absl::StrCat(r.repetition(), ":", r.workload().batch_size(),
                                 "@", r.devices(0)));
  }
  EXPECT_THAT(order, ElementsAre("0:32@xa-03", "0:32@xa-01", "0:64@xa-03",
                                 "0:64@xa-01", "1:32@xa-03", "1:32@xa-01",
                                 "1:64@xa-03", "1:64@xa-01", "2:32@xa-03",
                                 "2:32@xa-01", "2:64@xa-03", "2:64@xa-01"));
}

TEST(PlacementTest, NamedDevicesWithAnyPlacementAreAllowedOnEveryRun) {
  v1::SweepSpec spec = Study();
  spec.add_devices("xa-02");
  spec.add_devices("xa-04");  // listed: allowed though not connected now
  const ValidationContext ctx = Fleet();
  EXPECT_THAT(Problems(spec, ctx), IsEmpty());
  const std::vector<v1::RunSpec> runs =
      ExpandSweep(spec, ResolvePlacement(spec, ctx.known_devices, nullptr));
  ASSERT_EQ(runs.size(), 2u * 3u);
  for (const v1::RunSpec& r : runs) {
    EXPECT_THAT(r.devices(), ElementsAre("xa-02", "xa-04"));
  }
}

TEST(PlacementTest, UnknownDuplicateAndWrongClassDevicesAreNamed) {
  v1::SweepSpec spec = Study();
  spec.add_devices("xa-01");
  spec.add_devices("xa-09");
  spec.add_devices("nano-01");
  spec.add_devices("xa-01");
  spec.add_devices("");
  EXPECT_THAT(
      Problems(spec, Fleet()),
      ElementsAre(
          "devices[1]: unknown device 'xa-09' (known: nano-01, xa-01, xa-02, "
          "xa-03, xa-04)",
          "devices[2]: 'nano-01' is a nano, not one of device_classes "
          "(xavier-agx)",
          "devices[3]: 'xa-01' is listed twice",
          "devices[4]: must not be empty"));
}

TEST(PlacementTest, EveryDeviceWithoutAConnectedDeviceIsRejected) {
  v1::SweepSpec spec = Study();
  spec.set_placement(v1::PLACEMENT_EVERY_DEVICE);
  ValidationContext ctx = Fleet();
  for (v1::DeviceStatus& d : ctx.known_devices) d.set_connected(false);
  EXPECT_THAT(Problems(spec, ctx),
              ElementsAre("placement: every_device needs devices of class "
                          "xavier-agx: list them in devices, or connect one "
                          "(none is connected)"));
}

TEST(PlacementTest, ClassesComeFromTheListedDevicesWhenNoneAreGiven) {
  v1::SweepSpec spec = Study();
  spec.clear_device_classes();
  spec.add_devices("nano-01");
  spec.add_devices("xa-02");
  const v1::SweepSpec filled =
      WithClassesOfDevices(spec, Fleet().known_devices);
  EXPECT_THAT(filled.device_classes(), ElementsAre("nano", "xavier-agx"));
  const std::vector<v1::RunSpec> runs = ExpandSweep(
      filled, ResolvePlacement(filled, Fleet().known_devices, nullptr));
  ASSERT_EQ(runs.size(), 2u * 2u * 3u);
  for (const v1::RunSpec& r : runs) {
    EXPECT_THAT(r.devices(), ElementsAre(r.device_class() == "nano"
                                             ? "nano-01"
                                             : "xa-02"));
  }
}

TEST(PlacementTest, SettleIsCheckedDefaultedAndCarriedByEveryRun) {
  v1::SweepSpec spec = Study();
  spec.mutable_settle()->set_temp_band_c(2);
  spec = WithDefaults(spec);
  EXPECT_EQ(spec.settle().max_wait_s(), kDefaultSettleMaxWaitS);
  EXPECT_THAT(Problems(spec, Fleet()), IsEmpty());
  for (const v1::RunSpec& r : ExpandSweep(spec)) {
    EXPECT_EQ(r.settle().temp_band_c(), 2);
    EXPECT_EQ(r.settle().max_wait_s(), kDefaultSettleMaxWaitS);
  }
  v1::SweepSpec bad = Study();
  bad.mutable_settle()->set_temp_band_c(80);
  bad.mutable_settle()->set_seconds(-1);
  EXPECT_THAT(Problems(bad, Fleet()),
              ElementsAre("settle.temp_band_c: must be between 0 and 50, got 80",
                          "settle.seconds: must be between 0 and 3600, got -1"));
  v1::SweepSpec both = Study();
  both.mutable_settle()->set_temp_band_c(2);
  both.mutable_settle()->set_seconds(30);
  EXPECT_THAT(Problems(both, Fleet()),
              ElementsAre(HasSubstr("not both")));
  v1::SweepSpec empty = Study();
  empty.mutable_settle();
  EXPECT_THAT(Problems(empty, Fleet()),
              ElementsAre(HasSubstr("settle: give temp_band_c")));
}

// The values a re-audit found the agent accepting are refused at submit
// too, each naming its field.
TEST(PlacementTest, HostileSettleValuesAreRefusedNamingTheField) {
  v1::SweepSpec nan_seconds = Study();
  nan_seconds.mutable_settle()->set_seconds(std::nan(""));
  EXPECT_THAT(Problems(nan_seconds, Fleet()),
              Contains("settle.seconds: must be between 0 and 3600, got nan"));
  v1::SweepSpec huge_seconds = Study();
  huge_seconds.mutable_settle()->set_seconds(1e308);
  EXPECT_THAT(
      Problems(huge_seconds, Fleet()),
      Contains("settle.seconds: must be between 0 and 3600, got 1e+308"));
  v1::SweepSpec nan_wait = Study();
  nan_wait.mutable_settle()->set_temp_band_c(2);
  nan_wait.mutable_settle()->set_max_wait_s(std::nan(""));
  EXPECT_THAT(
      Problems(nan_wait, Fleet()),
      ElementsAre("settle.max_wait_s: must be between 0 and 86400, got nan"));
  v1::SweepSpec tiny_band = Study();
  tiny_band.mutable_settle()->set_temp_band_c(1e-9);
  EXPECT_THAT(Problems(WithDefaults(tiny_band), Fleet()),
              ElementsAre("settle.temp_band_c: must be 0 (no band) or at "
                          "least 0.1 C, got 1e-09"));
  v1::SweepSpec smallest = Study();
  smallest.mutable_settle()->set_temp_band_c(0.1);
  EXPECT_THAT(Problems(WithDefaults(smallest), Fleet()), IsEmpty());
}

TEST(PlacementTest, TheSweepFileSpellsPlacementDevicesAndSettle) {
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(R"(
name: study
devices: [xa-01, xa-02]
placement: every_device
settle: {temp_band_c: 2, max_wait_s: 120}
models: [lenet5]
datasets: [fashion-mnist]
batch_sizes: [32]
epochs: 1
)");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->devices(), ElementsAre("xa-01", "xa-02"));
  EXPECT_EQ(spec->placement(), v1::PLACEMENT_EVERY_DEVICE);
  EXPECT_EQ(spec->settle().temp_band_c(), 2);
  EXPECT_EQ(spec->settle().max_wait_s(), 120);
}

}  // namespace
}  // namespace powersweep
