// The state file of the fake libnvidia-ml (fake_nvml.cc) for tests: an
// H100-like GPU by default, written to a temporary file that
// $FAKE_NVML_STATE names. FAKE_NVML_LIBRARY is the fake's path (a compile
// definition of the tests that use it).
#ifndef POWERSWEEP_TESTS_AGENT_PLATFORM_HOST_FAKE_NVML_FAKE_NVML_STATE_H_
#define POWERSWEEP_TESTS_AGENT_PLATFORM_HOST_FAKE_NVML_FAKE_NVML_STATE_H_

#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace powersweep::testing_nvml {

using State = std::map<std::string, std::string>;

inline State H100() {
  return {{"gpus", "1"},
          {"name", "NVIDIA H100 80GB HBM3"},
          {"uuid", "GPU-5f0c-fake"},
          {"driver", "580.65.06"},
          {"power_mw", "250000"},
          {"energy_mj", "1000000"},
          {"sm_clock_mhz", "1980"},
          {"mem_clock_mhz", "2619"},
          {"util_pct", "57"},
          {"temp_c", "41"},
          {"mem_used_bytes", "1073741824"},
          {"mem_total_bytes", "85899345920"},
          {"limit_min_mw", "200000"},
          {"limit_max_mw", "700000"},
          {"limit_mw", "700000"},
          {"sm_clocks", "1980,1500,990,600,990"},
          {"mem_clocks", "2619,1593"},
          {"locked_mhz", "0"}};
}

// Writes `state` to `path` and points $FAKE_NVML_STATE at it.
inline void Write(const std::string& path, const State& state) {
  std::ofstream out(path, std::ios::trunc);
  for (const auto& [k, v] : state) out << k << ' ' << v << '\n';
  out.close();
  setenv("FAKE_NVML_STATE", path.c_str(), 1);
}

inline State Read(const std::string& path) {
  State m;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t sp = line.find(' ');
    if (sp != std::string::npos) m[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return m;
}

// Changes one key of the state at `path`.
inline void Set(const std::string& path, const std::string& key,
                const std::string& value) {
  State m = Read(path);
  m[key] = value;
  Write(path, m);
}

}  // namespace powersweep::testing_nvml

#endif  // POWERSWEEP_TESTS_AGENT_PLATFORM_HOST_FAKE_NVML_FAKE_NVML_STATE_H_
