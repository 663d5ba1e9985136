// Sweep validation against device classes and registered devices
// (controller/sweep/validate_devices.cc): power modes, runtimes, warnings.
#include "controller/sweep/validate_devices.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/sweep/validate_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing_util::Ctx;
using testing_util::Device;
using testing_util::GoodSpec;
using testing_util::Problems;

TEST(ValidateSweepDevicesTest, CoresAboveTheBoard) {
  v1::SweepSpec s = GoodSpec();
  s.add_power_modes()->set_cpu_cores(12);
  s.add_power_modes()->set_cpu_cores(16);
  EXPECT_THAT(Problems(s),
              ElementsAre("power_modes[2].cpu_cores: 16 is more than the 12 "
                          "cores of orin-agx"));
}

TEST(ValidateSweepDevicesTest, FrequencyNotInTableNamesTheNeighbours) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "xavier-agx");
  s.mutable_power_modes(0)->set_gpu_freq_hz(500000000);
  s.add_power_modes()->set_cpu_freq_khz(100000);     // below the lowest step
  s.add_power_modes()->set_mem_freq_hz(3000000000);  // above the highest
  s.add_power_modes()->set_cpu_freq_khz(1190400);    // a real step
  EXPECT_THAT(
      Problems(s),
      ElementsAre("power_modes[0].gpu_freq_hz: 500000000 is not a frequency "
                  "of xavier-agx (nearest: 420750000, 522750000)",
                  "power_modes[1].cpu_freq_khz: 100000 is not a frequency of "
                  "xavier-agx (nearest: 115200)",
                  "power_modes[2].mem_freq_hz: 3000000000 is not a frequency "
                  "of xavier-agx (nearest: 2133000000)"));
}

TEST(ValidateSweepDevicesTest, DuplicateModesNameTheFirstOccurrence) {
  v1::SweepSpec s = GoodSpec();
  s.mutable_power_modes(0)->set_cpu_cores(4);
  s.add_power_modes()->set_cpu_cores(2);
  s.add_power_modes()->set_cpu_cores(4);
  s.add_power_modes()->set_cpu_cores(4);
  v1::PowerMode* preset = s.add_power_modes();
  preset->set_preset("MAXN");
  preset->set_cpu_cores(4);  // differs from [0] by its preset
  EXPECT_THAT(Problems(s),
              ElementsAre("power_modes[2]: duplicate of power_modes[0]",
                          "power_modes[3]: duplicate of power_modes[0]"));
}

TEST(ValidateSweepDevicesTest, UnknownPreset) {
  v1::SweepSpec s = GoodSpec();
  s.mutable_power_modes(0)->set_preset("MODE_30W");
  s.add_power_modes()->set_preset("TURBO");
  EXPECT_THAT(Problems(s),
              ElementsAre("power_modes[1].preset: unknown preset 'TURBO' for "
                          "orin-agx (known: MAXN, MODE_15W, MODE_30W, "
                          "MODE_50W, hipc-MAXN, PM1_CPU, PM2_GPU, PM3_MEM, "
                          "sigmetrics-orin-MAXN)"));
}

TEST(ValidateSweepDevicesTest, EveryModeIsCheckedAgainstEveryClass) {
  v1::SweepSpec s = GoodSpec();
  s.add_device_classes("xavier-agx");
  s.mutable_power_modes(0)->set_preset("MODE_30W");  // Orin only
  s.mutable_power_modes(0)->set_cpu_cores(10);       // Orin has 12, Xavier 8
  EXPECT_THAT(Problems(s),
              ElementsAre("power_modes[0].preset: unknown preset 'MODE_30W' "
                          "for xavier-agx (known: MAXN, MODE_10W, MODE_15W, "
                          "MODE_30W_ALL, MODE_30W_6CORE, MODE_30W_4CORE, "
                          "MODE_30W_2CORE, MODE_15W_DESKTOP, sigmetrics-a, "
                          "sigmetrics-b, sigmetrics-c, sigmetrics-d, "
                          "sigmetrics-e, sigmetrics-f, sigmetrics-g, "
                          "sigmetrics-h, sigmetrics-i, sigmetrics-j, "
                          "sigmetrics-k, sigmetrics-l, sigmetrics-m, "
                          "sigmetrics-n)",
                          "power_modes[0].cpu_cores: 10 is more than the 8 "
                          "cores of xavier-agx"));
}

TEST(ValidateSweepDevicesTest, NegativeKnobs) {
  v1::SweepSpec s = GoodSpec();
  s.mutable_power_modes(0)->set_cpu_cores(-1);
  s.mutable_power_modes(0)->set_gpu_freq_hz(-5);
  EXPECT_THAT(Problems(s),
              ElementsAre("power_modes[0].cpu_cores: must not be negative (0 "
                          "leaves it as the device has it), got -1",
                          "power_modes[0].gpu_freq_hz: must not be negative (0 "
                          "leaves it as the device has it), got -5"));
}

TEST(ValidateSweepDevicesTest, HostGpuMemoryFrequenciesAndPresetsAreNotSettable) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  v1::PowerMode* m = s.mutable_power_modes(0);
  m->set_preset("MAXN");
  m->set_gpu_freq_hz(600000000);
  m->set_mem_freq_hz(1600000000);
  // The registered host has no GPU (validate_gpu_test.cc has one that does).
  EXPECT_THAT(Problems(s),
              ElementsAre("power_modes[0].preset: unknown preset 'MAXN' for "
                          "host (known: none)",
                          "power_modes[0].gpu_freq_hz: no registered host "
                          "device can lock its GPU's SM clock (no NVIDIA GPU "
                          "reported)",
                          "power_modes[0].mem_freq_hz: not settable on class "
                          "host in this version"));
}

TEST(ValidateSweepDevicesTest, HostCpuFrequencyMustBeOfferedByARegisteredHost) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.mutable_power_modes(0)->set_cpu_freq_khz(1000000);
  s.add_power_modes()->set_cpu_freq_khz(1100000);
  ValidationContext ctx = Ctx();
  for (v1::DeviceStatus& d : ctx.known_devices) {
    if (d.identity().device_class() != "host") continue;
    for (int64_t f : {800000, 1000000, 1200000}) {
      d.mutable_capabilities()->add_cpu_freqs_khz(f);
    }
  }
  EXPECT_THAT(Problems(s, ctx),
              ElementsAre("power_modes[1].cpu_freq_khz: 1100000 is not "
                          "offered by any registered host device (nearest: "
                          "1000000, 1200000; `powersweep devices --modes "
                          "DEVICE` lists a device's frequencies)"));
}

TEST(ValidateSweepDevicesTest, HostCoresBoundedByLargestRegisteredHost) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.mutable_power_modes(0)->set_cpu_cores(12);
  ValidationContext ctx = Ctx();  // host-0 has 8 cores
  EXPECT_THAT(Problems(s, ctx),
              ElementsAre("power_modes[0].cpu_cores: 12 is more than the 8 "
                          "cores of the largest registered host device"));
  ctx.known_devices.push_back(
      Device("host-1", "host", 16, {v1::RUNTIME_NATIVE}));
  EXPECT_THAT(Problems(s, ctx), IsEmpty());
}

TEST(ValidateSweepDevicesTest, HostCoresWithNoRegisteredHostOnlyWarn) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.mutable_power_modes(0)->set_cpu_cores(64);
  s.add_power_modes()->set_cpu_cores(0);  // 0 = as is: nothing to check
  s.add_power_modes()->set_cpu_cores(2);
  s.add_power_modes()->set_cpu_cores(-1);
  ValidationContext ctx;  // no devices at all
  std::vector<std::string> warnings;
  EXPECT_THAT(Problems(s, ctx, &warnings),
              ElementsAre("power_modes[3].cpu_cores: must not be negative (0 "
                          "leaves it as the device has it), got -1"));
  EXPECT_THAT(warnings,
              ElementsAre("power_modes[0].cpu_cores, power_modes[2].cpu_cores: "
                          "not checked against the cores and frequencies of a "
                          "host device because no host device is "
                          "registered yet",
                          "no device of class host is registered; its runs "
                          "wait until one connects"));
}

TEST(ValidateSweepDevicesTest, ContainerRuntimeNeedsADeviceOfferingIt) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.add_runtimes(v1::RUNTIME_CONTAINER);
  ValidationContext ctx = Ctx();
  EXPECT_THAT(Problems(s, ctx),
              ElementsAre("runtimes[1]: no registered device of class host "
                          "offers the container runtime"));
  ctx.known_devices.push_back(
      Device("host-1", "host", 4, {v1::RUNTIME_NATIVE, v1::RUNTIME_CONTAINER}));
  EXPECT_THAT(Problems(s, ctx), IsEmpty());
}

TEST(ValidateSweepDevicesTest, ClassWithoutDeviceIsAWarningNotAnError) {
  v1::SweepSpec s = GoodSpec();
  s.add_device_classes("nano");
  s.add_runtimes(v1::RUNTIME_CONTAINER);  // unknown devices: not an error
  ValidationContext ctx;
  ctx.known_devices.push_back(Device(
      "orin-0", "orin-agx", 12, {v1::RUNTIME_NATIVE, v1::RUNTIME_CONTAINER}));
  std::vector<std::string> warnings;
  EXPECT_THAT(Problems(s, ctx, &warnings), IsEmpty());
  EXPECT_THAT(warnings, ElementsAre("no device of class nano is registered; "
                                    "its runs wait until one connects"));
}

TEST(ValidateSweepDevicesTest, AWorkloadNoRegisteredDeviceOffersIsAWarning) {
  v1::SweepSpec s = GoodSpec();  // lenet5 on fashion-mnist, orin-agx
  ValidationContext ctx;
  v1::DeviceStatus orin =
      Device("orin-0", "orin-agx", 12, {v1::RUNTIME_NATIVE});
  orin.mutable_capabilities()->clear_datasets();
  orin.mutable_capabilities()->add_datasets("cifar10");
  ctx.known_devices.push_back(orin);
  std::vector<std::string> warnings;
  EXPECT_THAT(Problems(s, ctx, &warnings), IsEmpty());
  EXPECT_THAT(warnings,
              ElementsAre("no registered device of class orin-agx offers "
                          "lenet5 on fashion-mnist; its runs wait until one "
                          "does (an agent offers a data set given by "
                          "--dataset NAME=PATH)"));
  // Once a device offers it, no warning.
  ctx.known_devices.push_back(
      Device("orin-1", "orin-agx", 12, {v1::RUNTIME_NATIVE}));
  warnings.clear();
  EXPECT_THAT(Problems(s, ctx, &warnings), IsEmpty());
  EXPECT_THAT(warnings, IsEmpty());
}

}  // namespace
}  // namespace powersweep
