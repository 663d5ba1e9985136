// TwinClass: everything the twin knows about one Jetson class: core count
// and frequency tables (taken from the shared power-mode catalog,
// common/power/mode_space.h, so twins accept exactly what the controller
// validates), the constants of the performance model and of the power
// model, and the power rails as the real board names them.
// docs/twin-model.md gives the meaning and the source of every constant.
//
// Plain immutable data built once; safe to share between threads.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_CLASS_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_CLASS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace powersweep {

// Power components of the model; rails are weighted sums of them.
enum PowerComponent { kCpu = 0, kGpu, kEmc, kSoc, kCv, kSys, kComponents };

// One power-monitor channel (INA3221, Thor's INA238) as the board labels it. power = sum over components
// of weights[c] * component power. `is_total` marks the board's input rail
// (VDD_IN, POM_5V_IN, VIN): it carries every component (weights all 1).
struct RailSpec {
  std::string name;
  std::array<double, kComponents> weights{};
  bool is_total = false;
};

// A knob setting; 0 in a PowerMode means "the class maximum".
struct OperatingPoint {
  int cores = 0;
  int64_t cpu_khz = 0;
  int64_t gpu_hz = 0;
  int64_t mem_hz = 0;
};

struct TwinPerfConstants {
  double gpu_flops_per_cycle = 0;   // CUDA cores x 2 (FP32 FMA)
  double gpu_efficiency = 0;        // fraction of peak a small CNN reaches
  double gpu_kernel_cycles = 0;     // GPU cycles of fixed cost per kernel
  double mem_bytes_per_cycle = 0;   // DRAM bus bytes per EMC clock
  double mem_efficiency = 0;        // achievable fraction of DRAM peak
  double cpu_ipc = 0;               // work per cycle relative to Cortex-A78
  double storage_bytes_per_s = 0;   // cold reads (eMMC / microSD)
  double cuda_init_s = 0;           // CUDA context + model to GPU at start
  // What one cold file read costs besides its transfer (open, metadata,
  // seek, readahead misses), calibrated on the SIGMETRICS page-cache slide.
  double storage_file_latency_s = 0;
};

struct TwinPowerConstants {
  std::array<double, kComponents> static_mw{};  // leakage, always on
  double cpu_static_mw_per_core = 0;            // per online core
  double cpu_dyn_mw_per_ghz = 0;  // per core at util 1, V = V(fmax)
  double gpu_dyn_mw_per_ghz = 0;  // at util 1, V = V(fmax)
  double emc_dyn_mw_per_ghz = 0;  // at util 1
  double idle_activity = 0.1;     // CPU/GPU clock-tree activity when idle
  double emc_idle_activity = 0.3; // DRAM refresh and background traffic
  double v_floor = 0.6;           // V(0) / V(fmax); V linear in f
  // Board temperature above ambient per watt of board power (steady
  // state; the twin has no thermal lag).
  double thermal_c_per_w = 1.0;
};

struct TwinClass {
  std::string name;       // "orin-agx", ..., "thor" (TwinClassNames)
  std::string model;      // /proc/device-tree/model of the real board
  int cores = 0;                       // from common/power
  std::vector<int64_t> cpu_freqs_khz;  // ascending, from common/power
  std::vector<int64_t> gpu_freqs_hz;
  std::vector<int64_t> mem_freqs_hz;
  int64_t memory_bytes = 0;
  TwinPerfConstants perf;
  TwinPowerConstants power;
  std::vector<RailSpec> rails;

  OperatingPoint Max() const;
};

// nullptr when `name` is not a twin class.
const TwinClass* FindTwinClass(const std::string& name);
// "orin-agx", "xavier-agx", "xavier-nx", "nano", "orin-nx", "orin-nano",
// "thor".
std::vector<std::string> TwinClassNames();

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_CLASS_H_
