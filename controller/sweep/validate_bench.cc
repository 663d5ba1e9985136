// controller_sweep_validate_bench: CPU time of sweep validation
// (WithDefaults + ValidateSweep, what SweepSubmitter does before expanding)
// for sweeps of 1k, 4k and 8k distinct power modes of an orin-agx, so the
// growth with the list length is visible (linear: 8k takes about twice 4k).
// Not a test: timings vary by machine.
//
//   controller_sweep_validate_bench [--modes 1000,4000,8000] [--repeat 3]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "controller/sweep/validate.h"

namespace powersweep {
namespace {

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// `n` distinct valid modes of `cls` (cores, CPU, GPU and memory frequency
// taken from its tables in mixed radix).
v1::SweepSpec SweepWithModes(const DeviceClassInfo& cls, int n) {
  v1::SweepSpec spec;
  spec.set_name("validate-bench");
  spec.add_device_classes(cls.name);
  spec.add_models("lenet5");
  spec.add_datasets("fashion-mnist");
  spec.add_batch_sizes(32);
  spec.set_epochs(1);
  for (int i = 0; i < n; ++i) {
    int64_t k = i;
    v1::PowerMode* m = spec.add_power_modes();
    m->set_cpu_cores(1 + static_cast<int32_t>(k % cls.cpu_cores));
    k /= cls.cpu_cores;
    const auto pick = [&k](const std::vector<int64_t>& table) {
      const int64_t v = table[k % table.size()];
      k /= static_cast<int64_t>(table.size());
      return v;
    };
    m->set_cpu_freq_khz(pick(cls.cpu_freqs_khz));
    m->set_gpu_freq_hz(pick(cls.gpu_freqs_hz));
    m->set_mem_freq_hz(pick(cls.mem_freqs_hz));
  }
  return spec;
}

int Main(int argc, char** argv) {
  std::vector<int> sizes = {1000, 4000, 8000};
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--modes") == 0 && has_value) {
      sizes.clear();
      for (absl::string_view s : absl::StrSplit(argv[++i], ',')) {
        int v = 0;
        if (!absl::SimpleAtoi(s, &v) || v <= 0) {
          std::fprintf(stderr, "--modes: not a positive count: %s\n",
                       std::string(s).c_str());
          return 2;
        }
        sizes.push_back(v);
      }
    } else if (std::strcmp(argv[i], "--repeat") == 0 && has_value) {
      if (!absl::SimpleAtoi(argv[++i], &repeat) || repeat <= 0) {
        std::fprintf(stderr, "--repeat: must be a positive count\n");
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "usage: %s [--modes 1000,4000,8000] [--repeat 3]\n",
                   argv[0]);
      return 2;
    }
  }
  const ValidationContext ctx;
  const DeviceClassInfo* orin = ctx.device_classes.Find("orin-agx");
  if (orin == nullptr) {
    std::fprintf(stderr, "no orin-agx in the device-class catalog\n");
    return 1;
  }
  double previous_s = 0;
  for (int n : sizes) {
    const v1::SweepSpec spec = SweepWithModes(*orin, n);
    double best_s = 1e300;
    for (int r = 0; r < repeat; ++r) {
      const double start = CpuSeconds();
      std::vector<std::string> warnings;
      absl::Status s = ValidateSweep(WithDefaults(spec), ctx, &warnings);
      const double took = CpuSeconds() - start;
      if (!s.ok()) {
        std::fprintf(stderr, "%d modes: unexpected problems: %.300s\n", n,
                     std::string(s.message()).c_str());
        return 1;
      }
      best_s = std::min(best_s, took);
    }
    std::printf("%6d power modes: %9.2f ms CPU (best of %d)", n,
                best_s * 1e3, repeat);
    if (previous_s > 0) std::printf(", %.1fx the previous", best_s / previous_s);
    std::printf("\n");
    previous_s = best_s;
  }
  return 0;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) { return powersweep::Main(argc, argv); }
