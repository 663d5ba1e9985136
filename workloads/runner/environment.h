// What a run records about where it ran.
//
// ResolveThreadCount(requested): `requested` when > 0, else the number of
// CPUs in this process's affinity mask (sched_getaffinity; the agent limits
// cores through affinity), at least 1.
//
// CollectProvenance(threads): the BuildProvenance of the `started` record:
// framework "libtorch", framework_version from torch/version.h, the
// build-id (or sha256) of /proc/self/exe and of the loaded libtorch_cpu,
// its path, `threads`, device "cpu" (this build runs on the CPU), kernel
// (uname -r) and host name. A fingerprint that cannot be read is left
// empty and logged, never fatal. Thread-safe.
//
// FillCudaProvenance(benchmark, gpu): on a CUDA run, the CUDA runtime and
// cuDNN versions LibTorch was built with (its CUDA hooks) and whether
// cuDNN's benchmark mode is on. The GPU's name, compute capability and
// driver are the agent's (NVML), which knows the device. Call only when
// CUDA is available.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_ENVIRONMENT_H_
#define POWERSWEEP_WORKLOADS_RUNNER_ENVIRONMENT_H_

#include "powersweep/v1/records.pb.h"

namespace powersweep {

int ResolveThreadCount(int requested);

::powersweep::v1::BuildProvenance CollectProvenance(int threads);

void FillCudaProvenance(bool cudnn_benchmark,
                        ::powersweep::v1::GpuProvenance* gpu);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_ENVIRONMENT_H_
