// Discovery of every fixture board: class, identity, cores, clusters, GPU
// node, rails and the total, thermal zones, EMC.
#include "agent/platform/jetson/discovery.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/fake_sysfs_io.h"

namespace powersweep {
namespace jetson {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

struct Expected {
  std::string fixture;
  std::string device_class;
  int chip_id;
  std::string l4t;
  int jetpack;
  std::string kernel;
  std::vector<int> cluster_heads;
  int64_t cpu_max_khz;
  size_t cpu_steps;
  std::string gpu_name;
  size_t gpu_steps;
  int64_t gpu_max_hz;
  std::string gpu_load;
  std::vector<std::string> rails;
  std::string total_rail;  // "" = sum of rails
  std::vector<std::string> thermal;  // PMIC excluded
  size_t thermal_off;
  size_t emc_rates;        // 0 = no EMC knob
  bool emc_rates_from_board;
};

const std::vector<std::string> kOrinJp5Zones = {
    "CPU-therm", "GPU-therm", "CV0-therm", "CV1-therm", "CV2-therm",
    "SOC0-therm", "SOC1-therm", "SOC2-therm", "tj-therm"};
const std::vector<std::string> kOrinJp6Zones = {
    "cpu-thermal", "gpu-thermal", "cv0-thermal", "cv1-thermal", "cv2-thermal",
    "soc0-thermal", "soc1-thermal", "soc2-thermal", "tj-thermal"};
const std::vector<std::string> kXavierZones = {
    "AO-therm", "CPU-therm", "GPU-therm", "PLL-therm", "AUX-therm",
    "Tboard_tegra", "Tdiode_tegra", "thermal-fan-est"};

const Expected kBoards[] = {
    {"orin-agx-jp5", "orin-agx", 35, "35.4.1", 5, "5.10.120-tegra",
     {0, 4, 8}, 2201600, 29, "ga10b", 11, 1300500000,
     "/sys/devices/platform/gpu.0/load",
     {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO"}, "",
     kOrinJp5Zones, 3, 3, false},
    {"orin-agx-jp6", "orin-agx", 35, "36.3.0", 6, "5.15.136-tegra",
     {0, 4, 8}, 2201600, 29, "gpu", 11, 1300500000,
     "/sys/devices/platform/gpu.0/load",
     {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"}, "", kOrinJp6Zones, 3, 3,
     false},
    {"xavier-agx-jp4", "xavier-agx", 25, "32.7.1", 4, "4.9.253-tegra",
     {0, 2, 4, 6}, 2265600, 29, "gv11b", 14, 1377000000,
     "/sys/devices/gpu.0/load",
     {"GPU", "CPU", "SOC", "CV", "VDDRQ", "SYS5V"}, "", kXavierZones, 0, 9,
     true},
    {"xavier-agx-jp5", "xavier-agx", 25, "35.4.1", 5, "5.10.120-tegra",
     {0, 2, 4, 6}, 2265600, 29, "gv11b", 14, 1377000000,
     "/sys/devices/gpu.0/load",
     {"GPU", "CPU", "SOC", "CV", "VDDRQ", "SYS5V"}, "", kXavierZones, 0, 9,
     true},
    {"xavier-nx-jp5", "xavier-nx", 25, "35.4.1", 5, "5.10.120-tegra",
     {0, 2, 4}, 1907200, 25, "gv11b", 15, 1109250000,
     "/sys/devices/platform/gpu.0/load",
     {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"}, "VDD_IN",
     {"AO-therm", "CPU-therm", "GPU-therm", "PLL-therm", "AUX-therm",
      "thermal-fan-est"},
     0, 7, true},
    {"nano-jp4", "nano", 33, "32.7.1", 4, "4.9.253-tegra", {0}, 1479000, 15,
     "gpu", 12, 921600000, "/sys/devices/gpu.0/load",
     {"POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"}, "POM_5V_IN",
     {"AO-therm", "CPU-therm", "GPU-therm", "PLL-therm", "thermal-fan-est"},
     0, 0, false},
    // JetPack 6.2 (Super): the EMC has no rate tables in debugfs, so the
    // class's four lockable points are offered.
    {"orin-nx-jp62", "orin-nx", 35, "36.4.3", 6, "5.15.148-tegra", {0, 4},
     1984000, 26, "gpu", 10, 1173000000, "/sys/devices/platform/gpu.0/load",
     {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"}, "VDD_IN", kOrinJp6Zones, 3, 4,
     false},
    {"orin-nano-jp62", "orin-nano", 35, "36.4.3", 6, "5.15.148-tegra",
     {0, 4}, 1728000, 22, "gpu", 8, 1020000000,
     "/sys/devices/platform/gpu.0/load",
     {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"}, "VDD_IN", kOrinJp6Zones, 3, 4,
     false},
    // Thor: a PCI GPU without a device-tree node (the devfreq node's name),
    // no load file, the INA238's VIN as the total, the EMC as bwmgr.
    {"thor-jp7", "thor", 38, "38.4.0", 7, "6.8.12-tegra",
     {0, 2, 4, 6, 8, 10, 12}, 2601000, 4, "gpu-gpc-0", 3, 1575000000, "",
     {"VDD_GPU", "VDD_CPU_SOC_MSS", "VIN_SYS_5V0", "VIN"}, "VIN",
     {"cpu-thermal", "gpu-thermal", "soc012-thermal", "soc345-thermal",
      "tj-thermal"},
     0, 3, true},
};

class DiscoveryTest : public ::testing::TestWithParam<Expected> {};

TEST_P(DiscoveryTest, FindsTheBoardAsItIsLaidOut) {
  const Expected& e = GetParam();
  RealSysfsIo io(std::string(FIXTURES_DIR) + "/sysfs/" + e.fixture);
  absl::StatusOr<BoardInfo> board = DiscoverBoard(io);
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_EQ(board->device_class, e.device_class);
  EXPECT_EQ(board->chip_id, e.chip_id);
  EXPECT_EQ(board->l4t_release, e.l4t);
  EXPECT_EQ(board->jetpack, e.jetpack);
  EXPECT_EQ(board->kernel, e.kernel);
  EXPECT_FALSE(board->serial.empty());
  EXPECT_EQ(board->serial.find('\0'), std::string::npos);

  int cores = 0;
  std::vector<int> heads;
  for (const CpuCluster& c : board->clusters) {
    heads.push_back(c.cpus.front());
    cores += static_cast<int>(c.cpus.size());
    EXPECT_EQ(c.freqs_khz.size(), e.cpu_steps);
    EXPECT_EQ(c.freqs_khz.back(), e.cpu_max_khz);
  }
  EXPECT_EQ(heads, e.cluster_heads);
  EXPECT_EQ(cores, static_cast<int>(board->cpus.size()));

  ASSERT_TRUE(board->gpu.present);
  EXPECT_EQ(board->gpu.of_node_name, e.gpu_name);
  EXPECT_EQ(board->gpu.freqs_hz.size(), e.gpu_steps);
  EXPECT_EQ(board->gpu.freqs_hz.back(), e.gpu_max_hz);
  EXPECT_EQ(board->gpu.load_path, e.gpu_load);

  std::vector<std::string> rails;
  for (const Rail& r : board->rails) rails.push_back(r.name);
  EXPECT_EQ(rails, e.rails);  // NC and "sum of shunt voltages" skipped
  EXPECT_EQ(board->total_rail < 0 ? "" : board->rails[board->total_rail].name,
            e.total_rail);

  std::vector<std::string> zones;
  size_t off = 0;
  for (const ThermalZone& z : board->thermal) {
    zones.push_back(z.name);
    off += z.off ? 1 : 0;
  }
  EXPECT_EQ(zones, e.thermal);
  EXPECT_EQ(off, e.thermal_off);

  EXPECT_EQ(board->emc.present, e.emc_rates > 0);
  EXPECT_EQ(board->emc.rates_hz.size(), e.emc_rates);
  EXPECT_EQ(board->emc.rates_from_board, e.emc_rates_from_board);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, DiscoveryTest, ::testing::ValuesIn(kBoards),
    [](const ::testing::TestParamInfo<Expected>& info) {
      std::string name = info.param.fixture;
      for (char& c : name) c = c == '-' ? '_' : c;
      return name;
    });

TEST(DiscoveryTest, XavierEmcRatesComeFromTheDebugfsTables) {
  RealSysfsIo io(std::string(FIXTURES_DIR) + "/sysfs/xavier-agx-jp5");
  absl::StatusOr<BoardInfo> board = DiscoverBoard(io);
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_THAT(board->emc.rates_hz,
              ElementsAre(204000000, 408000000, 665600000, 800000000,
                          1065600000, 1331200000, 1600000000, 1866000000,
                          2133000000));
}

TEST(DiscoveryTest, RailsAreFoundWhateverTheHwmonNumber) {
  const std::string root = CopyFixture("orin-agx-jp5");
  const std::string bus = root + "/sys/bus/i2c/devices";
  std::filesystem::rename(bus + "/1-0040/hwmon/hwmon3",
                          bus + "/1-0040/hwmon/hwmon9");
  RealSysfsIo io(root);
  absl::StatusOr<BoardInfo> board = DiscoverBoard(io);
  ASSERT_TRUE(board.ok()) << board.status();
  ASSERT_EQ(board->rails.size(), 4u);
  EXPECT_EQ(board->rails[0].voltage_path,
            "/sys/bus/i2c/devices/1-0040/hwmon/hwmon9/in1_input");
}

TEST(DiscoveryTest, GpuOfNodeMayBeASymlinkIntoTheDeviceTree) {
  const std::string root = CopyFixture("xavier-agx-jp5");
  namespace fs = std::filesystem;
  const std::string dev = root + "/sys/devices/17000000.gv11b";
  const std::string dt = root + "/sys/firmware/devicetree/base/gpu@17000000";
  fs::create_directories(dt);
  fs::rename(dev + "/of_node/name", dt + "/name");
  fs::remove_all(dev + "/of_node");
  fs::create_directory_symlink("../../firmware/devicetree/base/gpu@17000000",
                               dev + "/of_node");
  RealSysfsIo io(root);
  absl::StatusOr<BoardInfo> board = DiscoverBoard(io);
  ASSERT_TRUE(board.ok()) << board.status();
  ASSERT_TRUE(board->gpu.present);
  EXPECT_EQ(board->gpu.devfreq_dir, "/sys/class/devfreq/17000000.gv11b");
}

TEST(DiscoveryTest, NotAJetsonIsAnErrorNamingTheChipIdFile) {
  const std::string root = CopyFixture("nano-jp4");
  std::filesystem::remove(root +
                          "/sys/module/tegra_fuse/parameters/tegra_chip_id");
  std::filesystem::remove(root + "/proc/device-tree/compatible");
  RealSysfsIo io(root);
  absl::StatusOr<BoardInfo> board = DiscoverBoard(io);
  ASSERT_FALSE(board.ok());
  EXPECT_EQ(board.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(board.status().message()),
              ::testing::HasSubstr("tegra_chip_id"));
}

TEST(DiscoveryTest, BoardClassTellsXavierAgxFromNx) {
  EXPECT_EQ(*BoardClass(25, "Jetson-AGX"), "xavier-agx");
  EXPECT_EQ(*BoardClass(25, "NVIDIA Jetson Xavier NX Developer Kit"),
            "xavier-nx");
  EXPECT_EQ(*BoardClass(35, "NVIDIA Jetson AGX Orin Developer Kit"),
            "orin-agx");
  EXPECT_EQ(*BoardClass(33, "NVIDIA Jetson Nano Developer Kit"), "nano");
  EXPECT_EQ(*BoardClass(35, "NVIDIA Jetson Orin NX Engineering Reference "
                            "Developer Kit Super"),
            "orin-nx");
  EXPECT_EQ(*BoardClass(35, "NVIDIA Jetson Orin Nano Engineering Reference "
                            "Developer Kit Super"),
            "orin-nano");
  EXPECT_EQ(*BoardClass(35, "NVIDIA Jetson Orin Nano Developer Kit"),
            "orin-nano");
  EXPECT_EQ(*BoardClass(38, "NVIDIA Jetson AGX Thor Developer Kit"), "thor");
  EXPECT_FALSE(BoardClass(35, "NVIDIA IGX Orin Developer Kit").ok());
  EXPECT_FALSE(BoardClass(33, "jetson_tx1").ok());
}

TEST(DiscoveryTest, JetpackFollowsTheL4tMajor) {
  EXPECT_EQ(JetpackOfL4t(32), 4);
  EXPECT_EQ(JetpackOfL4t(35), 5);
  EXPECT_EQ(JetpackOfL4t(36), 6);
  EXPECT_EQ(JetpackOfL4t(38), 7);  // Thor's JetPack 7.0 and 7.1
  EXPECT_EQ(JetpackOfL4t(39), 7);  // 7.2, Orin and Thor
  EXPECT_EQ(JetpackOfL4t(40), 0);
}

TEST(DiscoveryTest, ThorIsFoundByTheCompatibleWhenTheChipIdIsMissing) {
  const std::string root = CopyFixture("thor-jp7");
  std::filesystem::remove(root +
                          "/sys/module/tegra_fuse/parameters/tegra_chip_id");
  RealSysfsIo io(root);
  absl::StatusOr<BoardInfo> board = DiscoverBoard(io);
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_EQ(board->device_class, "thor");
  EXPECT_EQ(board->chip_id, 38);
}

TEST(DiscoveryTest, ThorMemoryClockIsTheBwmgrDevfreqNode) {
  RealSysfsIo io(std::string(FIXTURES_DIR) + "/sysfs/thor-jp7");
  absl::StatusOr<BoardInfo> board = DiscoverBoard(io);
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_TRUE(board->emc.devfreq());
  EXPECT_EQ(board->emc.devfreq_dir, "/sys/class/devfreq/bwmgr");
  EXPECT_EQ(board->emc.RatePath(), "/sys/class/devfreq/bwmgr/cur_freq");
  EXPECT_THAT(board->emc.rates_hz,
              ElementsAre(665600000, 2750000000, 4266000000));
  // gpu-nvd-0 is another clock domain of the same GPU: passed over.
  EXPECT_EQ(board->gpu.devfreq_dir, "/sys/class/devfreq/gpu-gpc-0");
  // The INA238's power file (microwatts) is read directly.
  const Rail& vin = board->rails[board->total_rail];
  EXPECT_EQ(vin.monitor, "ina238");
  EXPECT_TRUE(vin.power_in_uw);
  EXPECT_EQ(vin.power_path,
            "/sys/bus/i2c/devices/2-0044/hwmon/hwmon5/power1_input");
}

// Thor's gpu-thermal answers EAGAIN while the GPU is power-gated: the zone
// is kept (a gap in its series), not dropped for good.
TEST(DiscoveryTest, APowerGatedSensorIsKeptAsAGap) {
  const std::string root = CopyFixture("thor-jp7");
  FakeSysfsIo io(root);
  io.FailRead("/sys/devices/virtual/thermal/thermal_zone1/temp",
              absl::UnavailableError("Resource temporarily unavailable"));
  absl::StatusOr<BoardInfo> board = DiscoverBoard(io);
  ASSERT_TRUE(board.ok()) << board.status();
  ASSERT_EQ(board->thermal.size(), 5u);
  EXPECT_EQ(board->thermal[1].name, "gpu-thermal");
  EXPECT_TRUE(board->thermal[1].gated);
  EXPECT_FALSE(board->thermal[0].gated);
}

TEST(DiscoveryTest, ParsesTheL4tRelease) {
  EXPECT_EQ(*ParseL4tRelease("# R35 (release), REVISION: 4.1, GCID: 33958178, "
                             "BOARD: t186ref\n"),
            "35.4.1");
  EXPECT_EQ(*ParseL4tRelease("# R32 (release), REVISION: 7.1, GCID: 1\n"),
            "32.7.1");
  EXPECT_FALSE(ParseL4tRelease("Ubuntu 22.04").ok());
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
