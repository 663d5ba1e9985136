#include "workloads/runner/environment.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <sched.h>
#include <sys/utsname.h>
#include <torch/version.h>
#include <unistd.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/fingerprint.h"
#include "common/log.h"

namespace powersweep {
namespace {

std::string FingerprintOrEmpty(const std::string& path, const char* what) {
  absl::StatusOr<std::string> fp = BuildIdOfFile(path);
  if (!fp.ok()) {
    PS_LOG(WARNING) << "no fingerprint for the " << what << ": "
                    << fp.status().message();
    return "";
  }
  return *fp;
}

}  // namespace

int ResolveThreadCount(int requested) {
  if (requested > 0) return requested;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

v1::BuildProvenance CollectProvenance(int threads) {
  v1::BuildProvenance p;
  p.set_framework("libtorch");
  p.set_framework_version(absl::StrCat(
      TORCH_VERSION_MAJOR, ".", TORCH_VERSION_MINOR, ".", TORCH_VERSION_PATCH));
  p.set_binary_fingerprint(
      FingerprintOrEmpty("/proc/self/exe", "workload binary"));
  std::string torch_path = LoadedLibraryPath("libtorch_cpu");
  p.set_framework_path(torch_path);
  if (!torch_path.empty()) {
    p.set_framework_fingerprint(FingerprintOrEmpty(torch_path, "libtorch_cpu"));
  }
  p.set_threads(threads);
  p.set_device("cpu");
  utsname u;
  if (uname(&u) == 0) p.set_kernel(u.release);
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) == 0) p.set_host(host);
  return p;
}

namespace {

// "12.4" from CUDA's 12040, "9.1.0" from cuDNN's 90100 (their encodings:
// major*1000 + minor*10, and major*10000 + minor*100 + patch from 9 on,
// major*1000 + minor*100 + patch before).
std::string CudaVersionText(long v) {
  return absl::StrCat(v / 1000, ".", (v % 1000) / 10);
}
std::string CudnnVersionText(long v) {
  if (v >= 90000) {
    return absl::StrCat(v / 10000, ".", (v % 10000) / 100, ".", v % 100);
  }
  return absl::StrCat(v / 1000, ".", (v % 1000) / 100, ".", v % 100);
}

}  // namespace

void FillCudaProvenance(bool cudnn_benchmark, v1::GpuProvenance* gpu) {
  gpu->set_cudnn_benchmark(cudnn_benchmark);
  const at::CUDAHooksInterface& hooks = at::detail::getCUDAHooks();
  try {
    gpu->set_cuda_version(CudaVersionText(hooks.versionCUDART()));
  } catch (const std::exception& e) {
    PS_LOG(WARNING) << "CUDA runtime version unknown: " << e.what();
  }
  try {
    if (hooks.hasCuDNN()) {
      gpu->set_cudnn_version(CudnnVersionText(hooks.versionCuDNN()));
    }
  } catch (const std::exception& e) {
    PS_LOG(WARNING) << "cuDNN version unknown: " << e.what();
  }
}

}  // namespace powersweep
