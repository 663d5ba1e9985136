#include "workloads/runner/environment.h"

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

}  // namespace powersweep
