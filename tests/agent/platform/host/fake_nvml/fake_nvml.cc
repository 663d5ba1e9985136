// A fake libnvidia-ml for tests: the NVML functions the host platform calls
// (agent/platform/host/nvml_api.h), answering from a state file the test
// controls. The file is named by $FAKE_NVML_STATE; one "key value" per line:
//
//   gpus 1                       GPUs NVML lists
//   name / uuid / driver         identity strings
//   power_mw 250000              instant power before the knobs' scaling
//   energy_mj 1000               counter at energy_t0 (wall-clock seconds);
//   energy_t0 1700000000.5       the counter grows at the read power since
//   sm_clock_mhz 1980            SM clock when not locked
//   mem_clock_mhz 2619           memory clock
//   util_pct 57 / temp_c 41 / mem_used_bytes 1234
//   limit_min_mw / limit_max_mw / limit_mw
//   sm_clocks 1980,1500,990,600  supported SM clocks (MHz)
//   cc_major 9 / cc_minor 0      CUDA compute capability
//   mem_clocks 2619              supported memory clocks (MHz)
//   locked_mhz 0                 locked SM clock, 0 = none (written)
//   lost 1                       every device call: NVML_ERROR_GPU_IS_LOST
//   no_permission 1              every set call: NVML_ERROR_NO_PERMISSION
//   fail_<function> <code>       that function returns <code>
//
// Set calls write the new limit_mw / locked_mhz back to the file; every
// energy-counter read increments energy_calls (so a test sees how often the
// agent read it). Reported power is min(power_mw, limit_mw), scaled by
// locked / highest supported clock when the clock is locked.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::mutex mu;

std::string StatePath() {
  const char* p = getenv("FAKE_NVML_STATE");
  return p ? p : "";
}

std::map<std::string, std::string> Load() {
  std::map<std::string, std::string> m;
  std::ifstream in(StatePath());
  std::string line;
  while (std::getline(in, line)) {
    const size_t sp = line.find(' ');
    if (sp == std::string::npos) continue;
    m[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return m;
}

void Save(const std::map<std::string, std::string>& m) {
  const std::string tmp = StatePath() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const auto& [k, v] : m) out << k << ' ' << v << '\n';
  }
  std::rename(tmp.c_str(), StatePath().c_str());
}

double Num(const std::map<std::string, std::string>& m, const std::string& k,
           double dflt = 0) {
  auto it = m.find(k);
  return it == m.end() ? dflt : std::atof(it->second.c_str());
}

std::vector<unsigned> List(const std::map<std::string, std::string>& m,
                           const std::string& k) {
  std::vector<unsigned> out;
  auto it = m.find(k);
  if (it == m.end()) return out;
  std::stringstream ss(it->second);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(static_cast<unsigned>(std::atol(item.c_str())));
  }
  return out;
}

// The failure the state asks of `fn`, else 0; `device` calls also fail when
// the GPU is lost, set calls when there is no permission.
int Fail(const std::map<std::string, std::string>& m, const char* fn,
         bool device, bool set) {
  const int f = static_cast<int>(Num(m, std::string("fail_") + fn));
  if (f != 0) return f;
  if (device && Num(m, "lost") != 0) return 15;
  if (set && Num(m, "no_permission") != 0) return 4;
  return 0;
}

double PowerMw(const std::map<std::string, std::string>& m) {
  double p = Num(m, "power_mw");
  const double limit = Num(m, "limit_mw");
  if (limit > 0) p = std::min(p, limit);
  const double locked = Num(m, "locked_mhz");
  std::vector<unsigned> clocks = List(m, "sm_clocks");
  if (locked > 0 && !clocks.empty()) {
    p *= locked / *std::max_element(clocks.begin(), clocks.end());
  }
  return p;
}

double NowS() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int CopyString(const std::string& s, char* out, unsigned len) {
  if (s.size() + 1 > len) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::memcpy(out, s.c_str(), s.size() + 1);
  return 0;
}

int dummy_device;

}  // namespace

extern "C" {

typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;
typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

int nvmlInit_v2(void) {
  std::lock_guard<std::mutex> l(mu);
  return Fail(Load(), "nvmlInit_v2", false, false);
}

int nvmlShutdown(void) { return 0; }

const char* nvmlErrorString(int r) {
  switch (r) {
    case 0: return "Success";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    default: return "Unknown Error";
  }
}

int nvmlSystemGetDriverVersion(char* out, unsigned len) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  return CopyString(m.count("driver") ? m["driver"] : "580.00", out, len);
}

int nvmlDeviceGetCount_v2(unsigned* n) {
  std::lock_guard<std::mutex> l(mu);
  *n = static_cast<unsigned>(Num(Load(), "gpus", 1));
  return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* d) {
  std::lock_guard<std::mutex> l(mu);
  if (i >= static_cast<unsigned>(Num(Load(), "gpus", 1))) return 2;
  *d = reinterpret_cast<nvmlDevice_t>(&dummy_device);
  return 0;
}

int nvmlDeviceGetName(nvmlDevice_t, char* out, unsigned len) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetName", true, false)) return f;
  return CopyString(m.count("name") ? m["name"] : "Fake GPU", out, len);
}

int nvmlDeviceGetUUID(nvmlDevice_t, char* out, unsigned len) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetUUID", true, false)) return f;
  return CopyString(m.count("uuid") ? m["uuid"] : "GPU-fake", out, len);
}

int nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned* mw) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetPowerUsage", true, false)) return f;
  *mw = static_cast<unsigned>(PowerMw(m));
  return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t, unsigned long long* mj) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  m["energy_calls"] = std::to_string(static_cast<long>(Num(m, "energy_calls")) + 1);
  Save(m);
  if (int f = Fail(m, "nvmlDeviceGetTotalEnergyConsumption", true, false)) {
    return f;
  }
  double e = Num(m, "energy_mj");
  if (m.count("energy_t0")) e += PowerMw(m) * (NowS() - Num(m, "energy_t0"));
  *mj = static_cast<unsigned long long>(e);
  return 0;
}

int nvmlDeviceGetClockInfo(nvmlDevice_t, int type, unsigned* mhz) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetClockInfo", true, false)) return f;
  if (type == 2) {
    *mhz = static_cast<unsigned>(Num(m, "mem_clock_mhz"));
  } else {
    const double locked = Num(m, "locked_mhz");
    *mhz = static_cast<unsigned>(locked > 0 ? locked : Num(m, "sm_clock_mhz"));
  }
  return 0;
}

int nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t* u) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetUtilizationRates", true, false)) return f;
  u->gpu = static_cast<unsigned>(Num(m, "util_pct"));
  u->memory = 0;
  return 0;
}

int nvmlDeviceGetTemperature(nvmlDevice_t, int, unsigned* c) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetTemperature", true, false)) return f;
  *c = static_cast<unsigned>(Num(m, "temp_c"));
  return 0;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t* mem) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetMemoryInfo", true, false)) return f;
  mem->used = static_cast<unsigned long long>(Num(m, "mem_used_bytes"));
  mem->total = static_cast<unsigned long long>(Num(m, "mem_total_bytes"));
  mem->free = mem->total > mem->used ? mem->total - mem->used : 0;
  return 0;
}

int nvmlDeviceGetPowerManagementLimit(nvmlDevice_t, unsigned* mw) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetPowerManagementLimit", true, false)) {
    return f;
  }
  *mw = static_cast<unsigned>(Num(m, "limit_mw"));
  return 0;
}

int nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t, unsigned* lo,
                                                 unsigned* hi) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetPowerManagementLimitConstraints", true,
                   false)) {
    return f;
  }
  *lo = static_cast<unsigned>(Num(m, "limit_min_mw"));
  *hi = static_cast<unsigned>(Num(m, "limit_max_mw"));
  return 0;
}

int nvmlDeviceSetPowerManagementLimit(nvmlDevice_t, unsigned mw) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceSetPowerManagementLimit", true, true)) {
    return f;
  }
  if (mw < Num(m, "limit_min_mw") || mw > Num(m, "limit_max_mw")) return 2;
  m["limit_mw"] = std::to_string(mw);
  Save(m);
  return 0;
}

int nvmlDeviceGetSupportedMemoryClocks(nvmlDevice_t, unsigned* n,
                                       unsigned* mhz) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetSupportedMemoryClocks", true, false)) {
    return f;
  }
  std::vector<unsigned> c = List(m, "mem_clocks");
  if (c.size() > *n) return 7;
  std::copy(c.begin(), c.end(), mhz);
  *n = static_cast<unsigned>(c.size());
  return 0;
}

int nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t, unsigned, unsigned* n,
                                         unsigned* mhz) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetSupportedGraphicsClocks", true, false)) {
    return f;
  }
  std::vector<unsigned> c = List(m, "sm_clocks");
  if (c.size() > *n) return 7;
  std::copy(c.begin(), c.end(), mhz);
  *n = static_cast<unsigned>(c.size());
  return 0;
}

int nvmlDeviceSetGpuLockedClocks(nvmlDevice_t, unsigned lo, unsigned hi) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceSetGpuLockedClocks", true, true)) return f;
  if (lo != hi) return 2;
  m["locked_mhz"] = std::to_string(lo);
  Save(m);
  return 0;
}

int nvmlDeviceGetCudaComputeCapability(nvmlDevice_t, int* major, int* minor) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceGetCudaComputeCapability", true, false)) {
    return f;
  }
  *major = static_cast<int>(Num(m, "cc_major", 9));
  *minor = static_cast<int>(Num(m, "cc_minor", 0));
  return 0;
}

int nvmlDeviceResetGpuLockedClocks(nvmlDevice_t) {
  std::lock_guard<std::mutex> l(mu);
  auto m = Load();
  if (int f = Fail(m, "nvmlDeviceResetGpuLockedClocks", true, true)) return f;
  m["locked_mhz"] = "0";
  Save(m);
  return 0;
}

}  // extern "C"
