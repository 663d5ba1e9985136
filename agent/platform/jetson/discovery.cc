#include "agent/platform/jetson/discovery.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/power/mode_space.h"
#include "common/status_macros.h"

namespace powersweep {
namespace jetson {

namespace {

constexpr char kChipIdPath[] = "/sys/module/tegra_fuse/parameters/tegra_chip_id";
constexpr char kModelPath[] = "/proc/device-tree/model";
constexpr char kCompatiblePath[] = "/proc/device-tree/compatible";
constexpr char kSerialPath[] = "/proc/device-tree/serial-number";
constexpr char kReleasePath[] = "/etc/nv_tegra_release";
constexpr char kOsReleasePath[] = "/proc/sys/kernel/osrelease";
constexpr char kEmcTablesDir[] = "/sys/kernel/debug/bpmp/debug/emc/tables/regular";

// Device-tree node names of the integrated GPUs (device/of_node/name).
const char* const kGpuNodeNames[] = {"gv11b", "gp10b", "ga10b", "gb10b", "gpu"};
// devfreq node names of the GPU: Nano, Xavier, Orin (JetPack 5, 6) and
// Thor's graphics clock (its gpu-nvd-0 is another clock domain).
const char* const kGpuDevfreqNames[] = {"57000000.gpu", "17000000.gv11b",
                                        "17000000.ga10b", "17000000.gpu",
                                        "gpu-gpc-0"};

std::vector<int64_t> ReadIntListOr(SysfsIo& io, const std::string& path) {
  absl::StatusOr<std::string> text = io.Read(path);
  if (!text.ok()) return {};
  absl::StatusOr<std::vector<int64_t>> v = ParseIntList(*text);
  if (!v.ok()) return {};
  std::vector<int64_t> out = *v;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Chip id from the fuse parameter, else from the device-tree compatible.
absl::StatusOr<int> ChipId(SysfsIo& io) {
  absl::StatusOr<int64_t> id = ReadInt(io, kChipIdPath);
  if (id.ok()) return static_cast<int>(*id);
  absl::StatusOr<std::string> compat = io.Read(kCompatiblePath);
  const std::string all = compat.ok() ? *compat : "";
  if (absl::StrContains(all, "tegra264")) return 38;
  if (absl::StrContains(all, "tegra234")) return 35;
  if (absl::StrContains(all, "tegra194")) return 25;
  if (absl::StrContains(all, "tegra210")) return 33;
  return absl::FailedPreconditionError(absl::StrCat(
      io.Resolve(kChipIdPath), " is missing or unreadable and ",
      io.Resolve(kCompatiblePath),
      " names no known Tegra SoC (tegra194, tegra210, tegra234, tegra264): "
      "not a "
      "supported Jetson"));
}

absl::Status DiscoverCpus(SysfsIo& io, BoardInfo* board) {
  absl::StatusOr<std::string> present =
      io.Read(std::string(kCpuDir) + "/present");
  absl::StatusOr<std::vector<int64_t>> ids =
      present.ok() ? ParseIntList(*present)
                   : absl::StatusOr<std::vector<int64_t>>(
                         std::vector<int64_t>{});
  if (ids.ok()) {
    for (int64_t c : *ids) board->cpus.push_back(static_cast<int>(c));
  }
  if (board->cpus.empty()) {  // no "present" list: glob cpuN
    for (const std::string& name : io.List(kCpuDir)) {
      int c = 0;
      if (absl::StartsWith(name, "cpu") &&
          absl::SimpleAtoi(name.substr(3), &c)) {
        board->cpus.push_back(c);
      }
    }
    std::sort(board->cpus.begin(), board->cpus.end());
  }
  if (board->cpus.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        io.Resolve(kCpuDir), ": no CPUs found"));
  }
  std::set<int> seen;
  for (int cpu : board->cpus) {
    if (seen.count(cpu)) continue;
    const std::string dir = absl::StrCat(kCpuDir, "/cpu", cpu, "/cpufreq");
    std::vector<int64_t> related = ReadIntListOr(io, dir + "/related_cpus");
    if (related.empty()) related.push_back(cpu);
    CpuCluster cluster;
    for (int64_t c : related) {
      cluster.cpus.push_back(static_cast<int>(c));
      seen.insert(static_cast<int>(c));
    }
    cluster.cpufreq_dir = absl::StrCat(kCpuDir, "/cpu", cluster.cpus.front(),
                                       "/cpufreq");
    cluster.freqs_khz =
        ReadIntListOr(io, cluster.cpufreq_dir + "/scaling_available_frequencies");
    board->clusters.push_back(std::move(cluster));
  }
  return absl::OkStatus();
}

GpuNode DiscoverGpu(SysfsIo& io) {
  GpuNode gpu;
  for (const std::string& node : io.List("/sys/class/devfreq")) {
    const std::string dir = "/sys/class/devfreq/" + node;
    // of_node is a symlink into the device tree on boards (a plain
    // directory in fixtures); reading through it works for both.
    const std::string of_name = ReadTextOr(io, dir + "/device/of_node/name");
    bool match = false;
    for (const char* n : kGpuNodeNames) match = match || of_name == n;
    for (const char* n : kGpuDevfreqNames) match = match || node == n;
    if (!match) continue;
    gpu.present = true;
    gpu.of_node_name = of_name.empty() ? node : of_name;
    gpu.devfreq_dir = dir;
    gpu.power_control = dir + "/device/power/control";
    gpu.freqs_hz = ReadIntListOr(io, dir + "/available_frequencies");
    for (const std::string& load :
         {dir + "/device/load", std::string("/sys/devices/gpu.0/load"),
          std::string("/sys/devices/platform/gpu.0/load")}) {
      if (io.Exists(load)) {
        gpu.load_path = load;
        break;
      }
    }
    break;
  }
  return gpu;
}

EmcKnobs DiscoverEmc(SysfsIo& io, const std::string& device_class) {
  EmcKnobs emc;
  emc.present = io.Read(emc.Path("rate")).ok();
  if (!emc.present && io.Read(std::string(kEmcDevfreqDir) + "/cur_freq").ok()) {
    emc.present = true;
    emc.devfreq_dir = kEmcDevfreqDir;
    emc.rates_hz =
        ReadIntListOr(io, emc.devfreq_dir + "/available_frequencies");
    emc.rates_from_board = !emc.rates_hz.empty();
    if (emc.rates_hz.empty()) emc.rates_hz = ClassEmcRatesHz(device_class);
    return emc;
  }
  if (!emc.present) return emc;
  for (const std::string& name : io.List(kEmcTablesDir)) {
    int64_t khz = 0;
    if (absl::SimpleAtoi(name, &khz) && khz > 0) {
      emc.rates_hz.push_back(khz * 1000);
    }
  }
  std::sort(emc.rates_hz.begin(), emc.rates_hz.end());
  emc.rates_from_board = !emc.rates_hz.empty();
  if (emc.rates_hz.empty()) emc.rates_hz = ClassEmcRatesHz(device_class);
  return emc;
}

}  // namespace

const CpuCluster* BoardInfo::ClusterOf(int cpu) const {
  for (const CpuCluster& c : clusters) {
    if (std::find(c.cpus.begin(), c.cpus.end(), cpu) != c.cpus.end()) return &c;
  }
  return nullptr;
}

std::string BoardInfo::OnlinePath(int cpu) {
  return absl::StrCat(kCpuDir, "/cpu", cpu, "/online");
}

absl::StatusOr<std::string> ParseL4tRelease(const std::string& text) {
  // "# R35 (release), REVISION: 4.1, GCID: ..."
  const size_t r = text.find("# R");
  const size_t rev = text.find("REVISION:");
  int major = 0;
  if (r != std::string::npos && rev != std::string::npos) {
    const size_t end = text.find_first_not_of("0123456789", r + 3);
    if (absl::SimpleAtoi(text.substr(r + 3, end - (r + 3)), &major)) {
      size_t b = text.find_first_not_of(' ', rev + 9);
      size_t e = text.find_first_of(", \n", b);
      std::string revision = text.substr(b, e == std::string::npos
                                                ? std::string::npos
                                                : e - b);
      if (!revision.empty()) return absl::StrCat(major, ".", revision);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "nv_tegra_release: expected \"# R<major> (release), REVISION: <x.y>\", "
      "got \"", text.substr(0, text.find('\n')), "\""));
}

int JetpackOfL4t(int l4t_major) {
  if (l4t_major > 0 && l4t_major <= 32) return 4;
  if (l4t_major == 35) return 5;
  if (l4t_major == 36) return 6;
  if (l4t_major == 38 || l4t_major == 39) return 7;
  return 0;
}

absl::StatusOr<std::string> BoardClass(int chip_id, const std::string& model) {
  const std::string m = absl::AsciiStrToLower(model);
  if (chip_id == 38) return "thor";
  if (chip_id == 35 && absl::StrContains(m, "agx")) return "orin-agx";
  if (chip_id == 35 && absl::StrContains(m, "orin nx")) return "orin-nx";
  if (chip_id == 35 && absl::StrContains(m, "orin nano")) return "orin-nano";
  if (chip_id == 25) {
    return absl::StrContains(m, " nx") ? "xavier-nx" : "xavier-agx";
  }
  if (chip_id == 33 && absl::StrContains(m, "nano")) return "nano";
  return absl::InvalidArgumentError(absl::StrCat(
      "chip id ", chip_id, ", model \"", model,
      "\": not a supported board class (thor, orin-agx, orin-nx, orin-nano, "
      "xavier-agx, xavier-nx, nano)"));
}

std::vector<int64_t> ClassEmcRatesHz(const std::string& device_class) {
  // The controller's catalog offers the same rates (common/power).
  absl::StatusOr<DeviceClassSpec> spec = FindBuiltInDeviceClass(device_class);
  return spec.ok() ? spec->mem_freqs_hz : std::vector<int64_t>{};
}

absl::StatusOr<BoardInfo> DiscoverBoard(SysfsIo& io) {
  BoardInfo board;
  PS_ASSIGN_OR_RETURN(int chip, ChipId(io));
  board.chip_id = chip;
  board.model = ReadTextOr(io, kModelPath);
  absl::StatusOr<std::string> cls = BoardClass(board.chip_id, board.model);
  if (!cls.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        io.Resolve(kModelPath), ": ", cls.status().message()));
  }
  board.device_class = *cls;
  board.serial = ReadTextOr(io, kSerialPath);
  absl::StatusOr<std::string> release = io.Read(kReleasePath);
  if (release.ok()) {
    absl::StatusOr<std::string> l4t = ParseL4tRelease(*release);
    if (l4t.ok()) {
      board.l4t_release = *l4t;
      int major = 0;
      if (absl::SimpleAtoi(l4t->substr(0, l4t->find('.')), &major)) {
        board.jetpack = JetpackOfL4t(major);
      }
    }
  }
  board.kernel = ReadTextOr(io, kOsReleasePath);
  PS_RETURN_IF_ERROR(DiscoverCpus(io, &board));
  board.gpu = DiscoverGpu(io);
  board.rails = DiscoverRails(io);
  board.total_rail = FindTotalRail(board.rails);
  board.thermal = DiscoverThermal(io);
  board.emc = DiscoverEmc(io, board.device_class);
  return board;
}

}  // namespace jetson
}  // namespace powersweep
