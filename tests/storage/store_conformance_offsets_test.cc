// Store conformance: device calibration offsets, saved per (device,
// metric) with a later save replacing an earlier one, listed by device
// then metric; a bad offset stores nothing.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::DeviceOffset Offset(const std::string& device, const std::string& metric,
                        double factor) {
  v1::DeviceOffset o;
  o.set_device_id(device);
  o.set_device_class("xavier-agx");
  o.set_metric(metric);
  o.set_factor(factor);
  o.set_sweep_id(7);
  o.set_cells(3);
  o.set_runs(9);
  o.set_saved_unix_ms(1'700'000'000'123);
  return o;
}

std::vector<std::string> Lines(const std::vector<v1::DeviceOffset>& offsets) {
  std::vector<std::string> out;
  for (const v1::DeviceOffset& o : offsets) {
    out.push_back(o.device_id() + " " + o.metric() + " " +
                  std::to_string(o.factor()) + " sweep " +
                  std::to_string(o.sweep_id()) + " cells " +
                  std::to_string(o.cells()) + " runs " +
                  std::to_string(o.runs()));
  }
  return out;
}

template <typename Factory>
class StoreOffsetsTest : public StoreConformanceTest<Factory> {};
TYPED_TEST_SUITE(StoreOffsetsTest, StoreImplementations,
                 StoreImplementationNames);

TYPED_TEST(StoreOffsetsTest, OffsetsAreSavedReplacedAndListedByDevice) {
  Store& store = *this->store_;
  auto empty = store.ListDeviceOffsets("");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(*empty, IsEmpty());
  ASSERT_TRUE(store
                  .SaveDeviceOffsets({Offset("xa-02", "time", 1.15),
                                      Offset("xa-01", "time", 0.98),
                                      Offset("xa-01", "energy", 1.02)})
                  .ok());
  ASSERT_TRUE(store.SaveDeviceOffsets({Offset("xa-02", "time", 1.14)}).ok());
  auto all = store.ListDeviceOffsets("");
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(Lines(*all),
              ::testing::ElementsAre(
                  "xa-01 energy 1.020000 sweep 7 cells 3 runs 9",
                  "xa-01 time 0.980000 sweep 7 cells 3 runs 9",
                  "xa-02 time 1.140000 sweep 7 cells 3 runs 9"));
  auto one = store.ListDeviceOffsets("xa-02");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].device_class(), "xavier-agx");
  EXPECT_EQ((*one)[0].saved_unix_ms(), 1'700'000'000'123);
}

TYPED_TEST(StoreOffsetsTest, ABadOffsetStoresNothing) {
  Store& store = *this->store_;
  absl::Status st = store.SaveDeviceOffsets(
      {Offset("xa-01", "time", 1.1), Offset("xa-02", "time", 0)});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("offsets[1].factor"));
  st = store.SaveDeviceOffsets({Offset("", "time", 1.1)});
  EXPECT_THAT(st.message(), HasSubstr("offsets[0]: device_id"));
  auto all = store.ListDeviceOffsets("");
  ASSERT_TRUE(all.ok());
  EXPECT_THAT(*all, IsEmpty());
}

}  // namespace
}  // namespace powersweep
