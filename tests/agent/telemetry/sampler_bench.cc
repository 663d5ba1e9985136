// sampler_bench: the agent sampler's own CPU cost on this machine.
// Runs the real Sampler with the real HostPlatform (every agent CPU,
// /proc readers, cpufreq if present, RAPL or the power model) for
// DURATION seconds at each rate and prints sampler_cpu_s / duration.
//
// Usage: agent_sampler_bench [DURATION_S=10] [HZ...=10 100]
// With $BENCH_NVML_LIBRARY set the platform also samples that NVML library
// (a GPU host; the tests' fake libnvidia-ml reads its state file on every
// call, so its figure is an upper bound of a real driver's ~4 us calls).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "agent/platform/host/host_platform.h"
#include "agent/telemetry/energy.h"
#include "agent/telemetry/sampler.h"
#include "common/clock.h"

int main(int argc, char** argv) {
  using namespace powersweep;
  const double duration_s = argc > 1 ? std::atof(argv[1]) : 10;
  std::vector<double> rates;
  for (int i = 2; i < argc; ++i) rates.push_back(std::atof(argv[i]));
  if (rates.empty()) rates = {10, 100};
  HostPlatformOptions o;
  o.device_id = "bench";
  o.cgroup_root = "/nonexistent";  // never touch cgroups
  if (const char* nvml = std::getenv("BENCH_NVML_LIBRARY")) {
    o.nvml_library = nvml;
  }
  auto platform = HostPlatform::Create(o);
  if (!platform.ok()) {
    std::fprintf(stderr, "%s\n", std::string(platform.status().message()).c_str());
    return 1;
  }
  RealClock clock;
  std::printf("power source: %s, CPUs: %zu, GPU: %s\n",
              (*platform)->PowerSource().c_str(),
              (*platform)->AgentCpus().size(),
              (*platform)->Capabilities().gpu_name().empty()
                  ? (*platform)->Capabilities().gpu_note().c_str()
                  : (*platform)->Capabilities().gpu_name().c_str());
  for (double hz : rates) {
    Sampler sampler(platform->get(), &clock);
    SamplerOptions so;
    so.hz = hz;
    so.cpus = (*platform)->AgentCpus();
    so.pids = {};
    so.run_start_mono_ns = clock.MonotonicNanos();
    int samples = 0;
    EnergyAccumulator energy;
    sampler.Start(so, [&](const v1::TelemetrySample& s) {
      ++samples;
      energy.AddSample(s);
    });
    const double cpu0 = ProcessCpuSeconds();
    clock.SleepFor(absl::Seconds(duration_s));
    const double sampler_cpu_s = sampler.Stop();
    const double process_cpu_s = ProcessCpuSeconds() - cpu0;
    std::printf(
        "%6.1f Hz: %d samples in %.1f s, sampler_cpu_s %.4f (%.3f%% of one "
        "core, %.1f us/sample), process %.4f s, energy %.2f J\n",
        hz, samples, duration_s, sampler_cpu_s,
        100.0 * sampler_cpu_s / duration_s,
        samples > 0 ? 1e6 * sampler_cpu_s / samples : 0.0, process_cpu_s,
        energy.Result().energy_j);
  }
  return 0;
}
