// NvmlGpu: one NVIDIA GPU of a host through NVML, with libnvidia-ml loaded
// at run time (dlopen; no build dependency). Opens the library, initialises
// NVML, takes the GPU at an index and reads what it is once (name, UUID,
// driver, supported SM clocks, power-limit constraints), then:
// - Read(): the per-sample readings (instant power, SM and memory clock,
//   utilisation, temperature, memory used). Cheap calls only: NVML's energy
//   counter (milliseconds per call on a real driver) is EnergyJ(), read by
//   the platform at run start and end, never per sample.
// - the knobs: power limit (SetPowerLimitMw) and locked SM clock
//   (LockSmClock / ResetSmClock), each error naming the NVML function and
//   its reason.
// A GPU that answers NVML_ERROR_GPU_IS_LOST is marked lost: Read() then
// returns nothing and every write fails, without calling NVML again.
//
// Thread safety: NVML is thread-safe; the lost flag is atomic. Read() may
// run on the sampler thread while another thread sets a knob.
#ifndef POWERSWEEP_AGENT_PLATFORM_HOST_NVML_GPU_H_
#define POWERSWEEP_AGENT_PLATFORM_HOST_NVML_GPU_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/platform/host/nvml_api.h"

namespace powersweep {

struct NvmlGpuInfo {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string driver;
  std::string compute_capability;  // "9.0"; empty when NVML has none
  std::string library;  // the path or soname that was opened
  // SM clocks the GPU can be locked at (MHz, ascending), at its highest
  // memory clock; empty when NVML does not list them.
  std::vector<int64_t> sm_clocks_mhz;
  // The same in Hz, the unit of PowerMode.gpu_freq_hz.
  std::vector<int64_t> SmClocksHz() const {
    std::vector<int64_t> hz;
    for (int64_t mhz : sm_clocks_mhz) hz.push_back(mhz * 1'000'000);
    return hz;
  }
  int64_t limit_min_mw = 0;  // 0 when NVML has no power-limit constraints
  int64_t limit_max_mw = 0;
  int64_t limit_at_open_mw = 0;  // the limit when the agent started
};

// One sample's readings; a field is nullopt when NVML did not answer it.
struct NvmlReading {
  std::optional<double> power_mw;
  std::optional<int64_t> sm_clock_hz;
  std::optional<int64_t> mem_clock_hz;
  std::optional<double> util;  // 0..1
  std::optional<double> temperature_c;
  std::optional<int64_t> mem_used_bytes;
};

class NvmlGpu {
 public:
  // NotFound ("cannot open LIBRARY: ...") when the library cannot be
  // loaded or lacks a function the agent needs; FailedPrecondition when
  // NVML does not initialise or has no GPU at `index`.
  static absl::StatusOr<std::unique_ptr<NvmlGpu>> Open(
      const std::string& library, int index);
  ~NvmlGpu();
  NvmlGpu(const NvmlGpu&) = delete;
  NvmlGpu& operator=(const NvmlGpu&) = delete;

  const NvmlGpuInfo& info() const { return info_; }
  bool lost() const { return lost_.load(); }

  NvmlReading Read();
  // The GPU's energy counter (NVML total energy since the driver loaded).
  absl::StatusOr<double> EnergyJ();

  absl::StatusOr<int64_t> PowerLimitMw();
  absl::Status SetPowerLimitMw(int64_t mw);
  absl::StatusOr<int64_t> SmClockMhz();
  absl::Status LockSmClock(int64_t mhz);
  absl::Status ResetSmClock();

 private:
  struct Api;
  NvmlGpu(void* handle, std::unique_ptr<Api> api);
  // OK for NVML_SUCCESS; otherwise an error naming `function` and NVML's
  // reason (and marks the GPU lost on NVML_ERROR_GPU_IS_LOST).
  absl::Status Check(nvmlReturn_t r, const char* function);

  void* handle_ = nullptr;  // dlopen
  std::unique_ptr<Api> api_;
  nvmlDevice_t device_ = nullptr;
  NvmlGpuInfo info_;
  std::atomic<bool> lost_{false};
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_HOST_NVML_GPU_H_
