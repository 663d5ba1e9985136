// The part of NVIDIA's NVML C API (nvml.h, libnvidia-ml.so.1) the host
// platform calls, declared here so that nothing is needed at build time:
// the library is opened with dlopen at run time (nvml_gpu.h). Types, values
// and signatures are those of the public NVML API reference.
#ifndef POWERSWEEP_AGENT_PLATFORM_HOST_NVML_API_H_
#define POWERSWEEP_AGENT_PLATFORM_HOST_NVML_API_H_

extern "C" {

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;

// nvmlReturn_t values the agent tells apart.
enum : int {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_UNKNOWN = 999,
};

// nvmlClockType_t
enum : int { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
// nvmlTemperatureSensors_t
enum : int { NVML_TEMPERATURE_GPU = 0 };

typedef struct {
  unsigned int gpu;     // percent of time a kernel ran, last sample period
  unsigned int memory;  // percent of time memory was read or written
} nvmlUtilization_t;

typedef struct {
  unsigned long long total;  // bytes
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

// Function types, named after the symbols the agent looks up.
typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef const char* (*nvmlErrorString_fn)(nvmlReturn_t);
typedef nvmlReturn_t (*nvmlSystemGetDriverVersion_fn)(char*, unsigned int);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned int,
                                                         nvmlDevice_t*);
typedef nvmlReturn_t (*nvmlDeviceGetName_fn)(nvmlDevice_t, char*,
                                             unsigned int);
typedef nvmlReturn_t (*nvmlDeviceGetUUID_fn)(nvmlDevice_t, char*,
                                             unsigned int);
typedef nvmlReturn_t (*nvmlDeviceGetPowerUsage_fn)(nvmlDevice_t,
                                                   unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetTotalEnergyConsumption_fn)(
    nvmlDevice_t, unsigned long long*);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_fn)(nvmlDevice_t, int,
                                                  unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetUtilizationRates_fn)(nvmlDevice_t,
                                                         nvmlUtilization_t*);
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_fn)(nvmlDevice_t, int,
                                                    unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t,
                                                   nvmlMemory_t*);
typedef nvmlReturn_t (*nvmlDeviceGetPowerManagementLimit_fn)(nvmlDevice_t,
                                                             unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetPowerManagementLimitConstraints_fn)(
    nvmlDevice_t, unsigned int*, unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceSetPowerManagementLimit_fn)(nvmlDevice_t,
                                                             unsigned int);
typedef nvmlReturn_t (*nvmlDeviceGetSupportedMemoryClocks_fn)(nvmlDevice_t,
                                                              unsigned int*,
                                                              unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetSupportedGraphicsClocks_fn)(
    nvmlDevice_t, unsigned int, unsigned int*, unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceSetGpuLockedClocks_fn)(nvmlDevice_t,
                                                        unsigned int,
                                                        unsigned int);
typedef nvmlReturn_t (*nvmlDeviceResetGpuLockedClocks_fn)(nvmlDevice_t);
typedef nvmlReturn_t (*nvmlDeviceGetCudaComputeCapability_fn)(nvmlDevice_t,
                                                              int*, int*);

}  // extern "C"

#endif  // POWERSWEEP_AGENT_PLATFORM_HOST_NVML_API_H_
