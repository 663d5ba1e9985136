#include "common/power/mode_listing.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

v1::DeviceStatus Device(const std::string& id, const std::string& cls,
                        int cores) {
  v1::DeviceStatus d;
  d.mutable_identity()->set_device_id(id);
  d.mutable_identity()->set_device_class(cls);
  d.mutable_capabilities()->set_cpu_cores(cores);
  return d;
}

TEST(ModeListingTest, XavierDeviceGetsItsPresetsAndThe29kSpace) {
  auto r = ListModesFor(Device("xavier-3", "xavier-agx", 8),
                        PowerCatalog::Default());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->device_id(), "xavier-3");
  EXPECT_EQ(r->device_class(), "xavier-agx");
  EXPECT_EQ(r->custom_space_size(), 29232);
  EXPECT_EQ(r->core_choices(), 8);
  EXPECT_EQ(r->cpu_freq_choices(), 29);
  EXPECT_EQ(r->gpu_freq_choices(), 14);
  EXPECT_EQ(r->mem_freq_choices(), 9);
  ASSERT_EQ(r->presets_size(), 8 + 14);
  const v1::PowerModePreset& m10 = r->presets(1);
  EXPECT_EQ(m10.name(), "MODE_10W");
  EXPECT_EQ(m10.source(), "nvpmodel");
  EXPECT_EQ(m10.nvpmodel_id(), 1);
  EXPECT_EQ(m10.cpu_cores(), 2);
  EXPECT_EQ(m10.gpu_max_hz(), 520000000);
  EXPECT_EQ(r->presets(8).name(), "sigmetrics-a");
  EXPECT_TRUE(r->presets(8).fixed());
}

TEST(ModeListingTest, TheSettableFrequenciesAreListedAscending) {
  auto r = ListModesFor(Device("xavier-3", "xavier-agx", 8),
                        PowerCatalog::Default());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->cpu_freqs_khz_size(), r->cpu_freq_choices());
  ASSERT_EQ(r->gpu_freqs_hz_size(), r->gpu_freq_choices());
  ASSERT_EQ(r->mem_freqs_hz_size(), r->mem_freq_choices());
  EXPECT_TRUE(std::is_sorted(r->cpu_freqs_khz().begin(),
                             r->cpu_freqs_khz().end()));
  EXPECT_TRUE(std::is_sorted(r->gpu_freqs_hz().begin(),
                             r->gpu_freqs_hz().end()));
  // The Xavier AGX's top CPU step is 2265.6 MHz.
  EXPECT_EQ(r->cpu_freqs_khz(r->cpu_freqs_khz_size() - 1), 2265600);
}

TEST(ModeListingTest, HostHasNoPresetsAndOnlyCoreCounts) {
  auto r = ListModesFor(Device("host-0", "host", 2), PowerCatalog::Default());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->presets_size(), 0);
  EXPECT_EQ(r->custom_space_size(), 2);
  EXPECT_EQ(r->core_choices(), 2);
  EXPECT_EQ(r->cpu_freq_choices(), 0);
}

TEST(ModeListingTest, HostCpuStepsAreTheOnesTheDeviceReports) {
  v1::DeviceStatus host = Device("host-0", "host", 2);
  for (int64_t khz : {1000000, 500000, 2000000}) {
    host.mutable_capabilities()->add_cpu_freqs_khz(khz);
  }
  auto r = ListModesFor(host, PowerCatalog::Default());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cpu_freq_choices(), 3);
  EXPECT_EQ(r->custom_space_size(), 6);
}

TEST(ModeListingTest, UnknownClassIsNotFoundNamingTheDevice) {
  auto r = ListModesFor(Device("tx2-1", "tx2", 6), PowerCatalog::Default());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(),
            "device tx2-1 has class 'tx2', which the power-mode catalog does "
            "not know");
}

TEST(ModeListingTest, PowerModeKnobsConvert) {
  v1::PowerMode m;
  m.set_preset("ignored");
  m.set_cpu_cores(4);
  m.set_gpu_freq_hz(612000000);
  EXPECT_EQ(ToCustomMode(m), (CustomMode{4, 0, 612000000, 0}));
}

}  // namespace
}  // namespace powersweep
