// A JetsonPlatform over a private copy of a fixture tree, with a recording
// FakeSysfsIo and a FakeClock. Test-only.
#ifndef POWERSWEEP_TESTS_AGENT_PLATFORM_JETSON_RIG_H_
#define POWERSWEEP_TESTS_AGENT_PLATFORM_JETSON_RIG_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agent/platform/jetson/jetson_platform.h"
#include "common/fake_clock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/fake_sysfs_io.h"

namespace powersweep {
namespace jetson {

struct Rig {
  std::string root;
  FakeClock clock;
  FakeSysfsIo* io = nullptr;  // owned by platform
  std::unique_ptr<JetsonPlatform> platform;

  // Paths of the writes recorded so far, "path=value".
  std::vector<std::string> Writes() const {
    std::vector<std::string> out;
    for (const auto& [path, value] : io->writes()) {
      out.push_back(path + "=" + value);
    }
    return out;
  }
  std::string File(const std::string& path) const {
    return FileText(root, path);
  }
};

// `root` empty: a fresh copy of `fixture`.
inline std::unique_ptr<Rig> MakeRig(const std::string& fixture,
                                    JetsonPlatformOptions options = {},
                                    std::string root = "") {
  auto rig = std::make_unique<Rig>();
  rig->root = root.empty() ? CopyFixture(fixture) : root;
  auto io = std::make_unique<FakeSysfsIo>(rig->root);
  rig->io = io.get();
  options.sysfs_root = rig->root;
  auto platform = JetsonPlatform::Create(options, &rig->clock, std::move(io));
  EXPECT_TRUE(platform.ok()) << platform.status();
  if (platform.ok()) rig->platform = *std::move(platform);
  return rig;
}

inline v1::PowerMode Mode(int cores, int64_t cpu_khz, int64_t gpu_hz,
                          int64_t mem_hz) {
  v1::PowerMode m;
  m.set_cpu_cores(cores);
  m.set_cpu_freq_khz(cpu_khz);
  m.set_gpu_freq_hz(gpu_hz);
  m.set_mem_freq_hz(mem_hz);
  return m;
}

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_AGENT_PLATFORM_JETSON_RIG_H_
