// vm_startup_bench: what a VM costs a run (CLOSER'18's single-instance
// comparison). The same LeNet-5 training run (fashion-mnist, batch 64, no
// loader workers, --minibatches, --threads) of the real powersweep-workload
// runs natively (NativeRuntime) and in a VM (VmRuntime, the guest of
// build/vm-guest), alternating for --rounds rounds. Prints per run the
// time from start to the first record (for the VM: QEMU start, kernel boot,
// 9p mount, the workload's start-up) and the median minibatch time (end to
// end, minibatch 5 on), then the medians and the ratios. Asserts nothing.
// Goal (docs/vm.md): a VM starts its workload in under 3 s with KVM; with
// TCG (--accel tcg, the only choice on a PVM host) times are emulated.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/runtime/vm/vm_setup.h"
#include "common/clock.h"

ABSL_FLAG(std::string, build, "build", "the build folder (its workload and vm-guest)");
ABSL_FLAG(std::string, accel, "auto", "the VM's accelerator: auto, kvm or tcg");
ABSL_FLAG(int, rounds, 3, "native and vm runs, alternating");
ABSL_FLAG(int, minibatches, 40, "minibatches per run");
ABSL_FLAG(int, threads, 2, "LibTorch threads (and the VM's vCPUs)");

namespace powersweep {
namespace {

struct Figures {
  double first_record_s = 0;
  double median_minibatch_ms = 0;
  std::string failure;
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Figures Measure(Runtime& rt, RealClock& clock, const std::string& build,
                const std::string& log) {
  RuntimeSpec spec;
  spec.argv = {build + "/workloads/powersweep-workload", "run", "--model",
               "lenet5", "--dataset-path", "/usr/share/datasets/fashion-mnist",
               "--task", "train", "--batch-size", "64", "--workers", "0",
               "--minibatches", absl::StrCat(absl::GetFlag(FLAGS_minibatches)),
               "--seed", "1", "--threads",
               absl::StrCat(absl::GetFlag(FLAGS_threads)), "--records-fd", "3"};
  spec.stderr_log_path = log;
  spec.timeout_s = 1800;
  absl::Mutex mu;
  int64_t first_ns = 0;
  std::vector<double> e2e;
  const int64_t start = clock.MonotonicNanos();
  Figures f;
  absl::Status st = rt.Start(spec, [&](const v1::WorkloadEvent& e) {
    absl::MutexLock lock(&mu);
    if (first_ns == 0) first_ns = clock.MonotonicNanos();
    if (e.has_minibatch() && e.minibatch().index() >= 5) {
      e2e.push_back(e.minibatch().e2e_s() * 1000);
    }
  });
  if (!st.ok()) {
    f.failure = std::string(st.message());
    return f;
  }
  f.failure = rt.Wait().FailureReason();
  absl::MutexLock lock(&mu);
  f.first_record_s = first_ns > 0 ? (first_ns - start) / 1e9 : 0;
  f.median_minibatch_ms = Median(e2e);
  return f;
}

int Main() {
  const std::string build = absl::GetFlag(FLAGS_build);
  VmOptions o;
  o.image = build + "/vm-guest";
  o.accel = absl::GetFlag(FLAGS_accel);
  o.cores = absl::GetFlag(FLAGS_threads);
  absl::StatusOr<VmSetup> setup = DiscoverVms(o);
  if (!setup.ok() || !setup->enabled) {
    std::fprintf(stderr, "vm_startup_bench: no vm runs: %s\n",
                 setup.ok() ? setup->why_not.c_str()
                            : std::string(setup.status().message()).c_str());
    return 2;
  }
  std::printf("VM: %s (%s), %d vCPUs, guest %s\n",
              setup->config.accel.accel.c_str(),
              setup->config.accel.reason.c_str(), absl::GetFlag(FLAGS_threads),
              setup->config.guest.description.c_str());
  RealClock clock;
  char dir[] = "/tmp/vm-startup-bench.XXXXXX";
  if (mkdtemp(dir) == nullptr) return 2;
  std::vector<double> nf, nm, vf, vm;
  for (int r = 1; r <= absl::GetFlag(FLAGS_rounds); ++r) {
    NativeRuntime native(&clock);
    const Figures n =
        Measure(native, clock, build, absl::StrCat(dir, "/native-", r, ".log"));
    v1::VmSpec size;
    size.set_vcpus(absl::GetFlag(FLAGS_threads));
    size.set_memory_mib(2048);
    VmRuntime vmrt(&clock, setup->config, size, absl::GetFlag(FLAGS_threads));
    const Figures v =
        Measure(vmrt, clock, build, absl::StrCat(dir, "/vm-", r, ".log"));
    std::printf(
        "round %d: native first record %.2f s, minibatch %.2f ms%s; vm first "
        "record %.2f s, minibatch %.2f ms%s\n",
        r, n.first_record_s, n.median_minibatch_ms,
        n.failure.empty() ? "" : (" (" + n.failure + ")").c_str(),
        v.first_record_s, v.median_minibatch_ms,
        v.failure.empty() ? "" : (" (" + v.failure + ")").c_str());
    nf.push_back(n.first_record_s);
    nm.push_back(n.median_minibatch_ms);
    vf.push_back(v.first_record_s);
    vm.push_back(v.median_minibatch_ms);
  }
  const double a = Median(nf), b = Median(vf), c = Median(nm), d = Median(vm);
  std::printf(
      "median: first record native %.2f s, vm %.2f s (vm - native %.2f s; "
      "goal with KVM: vm < 3 s); minibatch native %.2f ms, vm %.2f ms "
      "(vm / native %.2f)\n",
      a, b, b - a, c, d, c > 0 ? d / c : 0);
  return 0;
}

}  // namespace
}  // namespace powersweep

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "vm_startup_bench [--build DIR] [--accel auto|kvm|tcg] [--rounds N] "
      "[--minibatches N] [--threads N]: native vs vm start-up and minibatch "
      "time of a LeNet-5 run");
  absl::ParseCommandLine(argc, argv);
  return powersweep::Main();
}
