#include "agent/platform/host/nvml_gpu.h"

#include <dlfcn.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace powersweep {

struct NvmlGpu::Api {
  nvmlInit_v2_fn init = nullptr;
  nvmlShutdown_fn shutdown = nullptr;
  nvmlErrorString_fn error_string = nullptr;
  nvmlSystemGetDriverVersion_fn driver_version = nullptr;
  nvmlDeviceGetCount_v2_fn count = nullptr;
  nvmlDeviceGetHandleByIndex_v2_fn handle_by_index = nullptr;
  nvmlDeviceGetName_fn name = nullptr;
  nvmlDeviceGetUUID_fn uuid = nullptr;
  nvmlDeviceGetPowerUsage_fn power_usage = nullptr;
  nvmlDeviceGetTotalEnergyConsumption_fn total_energy = nullptr;
  nvmlDeviceGetClockInfo_fn clock_info = nullptr;
  nvmlDeviceGetUtilizationRates_fn utilization = nullptr;
  nvmlDeviceGetTemperature_fn temperature = nullptr;
  nvmlDeviceGetMemoryInfo_fn memory_info = nullptr;
  nvmlDeviceGetPowerManagementLimit_fn get_limit = nullptr;
  nvmlDeviceGetPowerManagementLimitConstraints_fn limit_constraints = nullptr;
  nvmlDeviceSetPowerManagementLimit_fn set_limit = nullptr;
  nvmlDeviceGetSupportedMemoryClocks_fn mem_clocks = nullptr;
  nvmlDeviceGetSupportedGraphicsClocks_fn graphics_clocks = nullptr;
  nvmlDeviceSetGpuLockedClocks_fn lock_clocks = nullptr;
  nvmlDeviceResetGpuLockedClocks_fn reset_clocks = nullptr;
  nvmlDeviceGetCudaComputeCapability_fn compute_capability = nullptr;
};

namespace {

// Looks up `symbol`; records it in `missing` when absent.
template <typename Fn>
void Bind(void* handle, const char* symbol, Fn* out,
          std::vector<std::string>* missing) {
  *out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (*out == nullptr) missing->push_back(symbol);
}

absl::Status StatusFor(nvmlReturn_t r, std::string message) {
  switch (r) {
    case NVML_ERROR_NO_PERMISSION:
      return absl::PermissionDeniedError(std::move(message));
    case NVML_ERROR_NOT_SUPPORTED:
      return absl::UnimplementedError(std::move(message));
    case NVML_ERROR_INVALID_ARGUMENT:
      return absl::InvalidArgumentError(std::move(message));
    case NVML_ERROR_GPU_IS_LOST:
      return absl::UnavailableError(std::move(message));
    default:
      return absl::InternalError(std::move(message));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<NvmlGpu>> NvmlGpu::Open(
    const std::string& library, int index) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(absl::StrCat("cannot open ", library, ": ",
                                            why ? why : "unknown reason"));
  }
  auto api = std::make_unique<Api>();
  std::vector<std::string> missing;
  Bind(handle, "nvmlInit_v2", &api->init, &missing);
  Bind(handle, "nvmlShutdown", &api->shutdown, &missing);
  Bind(handle, "nvmlErrorString", &api->error_string, &missing);
  Bind(handle, "nvmlSystemGetDriverVersion", &api->driver_version, &missing);
  Bind(handle, "nvmlDeviceGetCount_v2", &api->count, &missing);
  Bind(handle, "nvmlDeviceGetHandleByIndex_v2", &api->handle_by_index,
       &missing);
  Bind(handle, "nvmlDeviceGetName", &api->name, &missing);
  Bind(handle, "nvmlDeviceGetUUID", &api->uuid, &missing);
  Bind(handle, "nvmlDeviceGetPowerUsage", &api->power_usage, &missing);
  Bind(handle, "nvmlDeviceGetTotalEnergyConsumption", &api->total_energy,
       &missing);
  Bind(handle, "nvmlDeviceGetClockInfo", &api->clock_info, &missing);
  Bind(handle, "nvmlDeviceGetUtilizationRates", &api->utilization, &missing);
  Bind(handle, "nvmlDeviceGetTemperature", &api->temperature, &missing);
  Bind(handle, "nvmlDeviceGetMemoryInfo", &api->memory_info, &missing);
  Bind(handle, "nvmlDeviceGetPowerManagementLimit", &api->get_limit,
       &missing);
  Bind(handle, "nvmlDeviceGetPowerManagementLimitConstraints",
       &api->limit_constraints, &missing);
  Bind(handle, "nvmlDeviceSetPowerManagementLimit", &api->set_limit,
       &missing);
  Bind(handle, "nvmlDeviceGetSupportedMemoryClocks", &api->mem_clocks,
       &missing);
  Bind(handle, "nvmlDeviceGetSupportedGraphicsClocks", &api->graphics_clocks,
       &missing);
  Bind(handle, "nvmlDeviceSetGpuLockedClocks", &api->lock_clocks, &missing);
  Bind(handle, "nvmlDeviceResetGpuLockedClocks", &api->reset_clocks,
       &missing);
  // Optional: provenance only.
  api->compute_capability =
      reinterpret_cast<nvmlDeviceGetCudaComputeCapability_fn>(
          dlsym(handle, "nvmlDeviceGetCudaComputeCapability"));
  if (!missing.empty()) {
    dlclose(handle);
    return absl::NotFoundError(
        absl::StrCat("cannot open ", library, ": it has no ", missing.front(),
                     missing.size() > 1
                         ? absl::StrCat(" (and ", missing.size() - 1,
                                        " other NVML functions)")
                         : std::string()));
  }
  const nvmlReturn_t init = api->init();
  if (init != NVML_SUCCESS) {
    const std::string why = api->error_string(init);
    dlclose(handle);
    return absl::FailedPreconditionError(
        absl::StrCat("nvmlInit_v2 failed: ", why));
  }
  std::unique_ptr<NvmlGpu> gpu(new NvmlGpu(handle, std::move(api)));
  NvmlGpuInfo& info = gpu->info_;
  info.index = index;
  info.library = library;
  unsigned int count = 0;
  if (gpu->api_->count(&count) != NVML_SUCCESS ||
      index >= static_cast<int>(count) || index < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "NVML has ", count, " GPU", count == 1 ? "" : "s", ", no GPU ",
        index));
  }
  const nvmlReturn_t h = gpu->api_->handle_by_index(
      static_cast<unsigned int>(index), &gpu->device_);
  if (h != NVML_SUCCESS) {
    return absl::FailedPreconditionError(
        absl::StrCat("nvmlDeviceGetHandleByIndex_v2(", index,
                     ") failed: ", gpu->api_->error_string(h)));
  }
  char text[256] = {0};
  if (gpu->api_->name(gpu->device_, text, sizeof(text)) == NVML_SUCCESS) {
    info.name = text;
  }
  text[0] = 0;
  if (gpu->api_->uuid(gpu->device_, text, sizeof(text)) == NVML_SUCCESS) {
    info.uuid = text;
  }
  text[0] = 0;
  if (gpu->api_->driver_version(text, sizeof(text)) == NVML_SUCCESS) {
    info.driver = text;
  }
  int major = 0, minor = 0;
  if (gpu->api_->compute_capability != nullptr &&
      gpu->api_->compute_capability(gpu->device_, &major, &minor) ==
          NVML_SUCCESS) {
    info.compute_capability = absl::StrCat(major, ".", minor);
  }
  unsigned int lo = 0, hi = 0;
  if (gpu->api_->limit_constraints(gpu->device_, &lo, &hi) == NVML_SUCCESS &&
      hi >= lo && hi > 0) {
    info.limit_min_mw = lo;
    info.limit_max_mw = hi;
  }
  unsigned int limit = 0;
  if (gpu->api_->get_limit(gpu->device_, &limit) == NVML_SUCCESS) {
    info.limit_at_open_mw = limit;
  }
  // SM clocks at the highest memory clock (the one a GPU runs under load).
  unsigned int mem[64];
  unsigned int n_mem = 64;
  if (gpu->api_->mem_clocks(gpu->device_, &n_mem, mem) == NVML_SUCCESS &&
      n_mem > 0) {
    const unsigned int top = *std::max_element(mem, mem + n_mem);
    std::vector<unsigned int> sm(1024);
    unsigned int n_sm = static_cast<unsigned int>(sm.size());
    if (gpu->api_->graphics_clocks(gpu->device_, top, &n_sm, sm.data()) ==
        NVML_SUCCESS) {
      for (unsigned int i = 0; i < n_sm && i < sm.size(); ++i) {
        info.sm_clocks_mhz.push_back(sm[i]);
      }
      std::sort(info.sm_clocks_mhz.begin(), info.sm_clocks_mhz.end());
      info.sm_clocks_mhz.erase(
          std::unique(info.sm_clocks_mhz.begin(), info.sm_clocks_mhz.end()),
          info.sm_clocks_mhz.end());
    }
  }
  return gpu;
}

NvmlGpu::NvmlGpu(void* handle, std::unique_ptr<Api> api)
    : handle_(handle), api_(std::move(api)) {}

NvmlGpu::~NvmlGpu() {
  if (api_ != nullptr && api_->shutdown != nullptr) api_->shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

absl::Status NvmlGpu::Check(nvmlReturn_t r, const char* function) {
  if (r == NVML_SUCCESS) return absl::OkStatus();
  if (r == NVML_ERROR_GPU_IS_LOST) lost_.store(true);
  return StatusFor(r, absl::StrCat(function, " on GPU ", info_.index, " (",
                                   info_.name, "): ", api_->error_string(r)));
}

NvmlReading NvmlGpu::Read() {
  NvmlReading out;
  if (lost()) return out;
  unsigned int v = 0;
  nvmlReturn_t r = api_->power_usage(device_, &v);
  if (r == NVML_ERROR_GPU_IS_LOST) {
    lost_.store(true);
    return out;
  }
  if (r == NVML_SUCCESS) out.power_mw = v;
  if (api_->clock_info(device_, NVML_CLOCK_SM, &v) == NVML_SUCCESS) {
    out.sm_clock_hz = int64_t{v} * 1'000'000;
  }
  if (api_->clock_info(device_, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) {
    out.mem_clock_hz = int64_t{v} * 1'000'000;
  }
  nvmlUtilization_t util{};
  if (api_->utilization(device_, &util) == NVML_SUCCESS) {
    out.util = std::min(1.0, util.gpu / 100.0);
  }
  if (api_->temperature(device_, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
    out.temperature_c = v;
  }
  nvmlMemory_t mem{};
  if (api_->memory_info(device_, &mem) == NVML_SUCCESS) {
    out.mem_used_bytes = static_cast<int64_t>(mem.used);
  }
  return out;
}

absl::StatusOr<double> NvmlGpu::EnergyJ() {
  if (lost()) return absl::UnavailableError("the GPU is lost");
  unsigned long long mj = 0;
  absl::Status s = Check(api_->total_energy(device_, &mj),
                         "nvmlDeviceGetTotalEnergyConsumption");
  if (!s.ok()) return s;
  return static_cast<double>(mj) / 1000.0;
}

absl::StatusOr<int64_t> NvmlGpu::PowerLimitMw() {
  if (lost()) return absl::UnavailableError("the GPU is lost");
  unsigned int mw = 0;
  absl::Status s = Check(api_->get_limit(device_, &mw),
                         "nvmlDeviceGetPowerManagementLimit");
  if (!s.ok()) return s;
  return int64_t{mw};
}

absl::Status NvmlGpu::SetPowerLimitMw(int64_t mw) {
  if (lost()) return absl::UnavailableError("the GPU is lost");
  return Check(api_->set_limit(device_, static_cast<unsigned int>(mw)),
               "nvmlDeviceSetPowerManagementLimit");
}

absl::StatusOr<int64_t> NvmlGpu::SmClockMhz() {
  if (lost()) return absl::UnavailableError("the GPU is lost");
  unsigned int mhz = 0;
  absl::Status s =
      Check(api_->clock_info(device_, NVML_CLOCK_SM, &mhz),
            "nvmlDeviceGetClockInfo(NVML_CLOCK_SM)");
  if (!s.ok()) return s;
  return int64_t{mhz};
}

absl::Status NvmlGpu::LockSmClock(int64_t mhz) {
  if (lost()) return absl::UnavailableError("the GPU is lost");
  const auto m = static_cast<unsigned int>(mhz);
  return Check(api_->lock_clocks(device_, m, m),
               "nvmlDeviceSetGpuLockedClocks");
}

absl::Status NvmlGpu::ResetSmClock() {
  if (lost()) return absl::UnavailableError("the GPU is lost");
  return Check(api_->reset_clocks(device_), "nvmlDeviceResetGpuLockedClocks");
}

}  // namespace powersweep
