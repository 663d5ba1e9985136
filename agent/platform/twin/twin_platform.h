// TwinPlatform: a simulated Jetson of a given class and instance
// (docs/twin-model.md). Nothing on the machine is changed or read besides
// the hostname and kernel release.
//
// - Identity: platform "twin", the class, device id "<class>-twin-<N>"
//   unless given, serial "TWIN-<class>-<N>-<seed>".
// - Capabilities: the class's cores, frequency tables and memory (the
//   models and data sets the twin can cost are its agent's catalog,
//   agent/runtime/twin/twin_agent.h).
// - Apply: ResolvePowerMode (class tables, presets and study modes of the
//   shared catalog common/power; a 0 knob is the class maximum); reports
//   actual = the resolved point, provenance SIMULATED. Nothing changes on
//   error.
// - Sample: per-core utilization and frequency, GPU, rails and total from
//   the power model at the current point and the load last set with
//   SetLoad (idle when no run is active), all PROVENANCE_SIMULATED. Unlike
//   the host, the twin also writes utilization: /proc says nothing about a
//   simulated device.
// - Restore: back to the class maximum (MAXN), idle load.
// - temperature_file (tests): an injected temperature read from a file.
// The twin runtime (agent/runtime/twin) reads the point and the models
// from here, keeps the page-cache state and numbers the runs.
//
// Thread safety: every method may be called from any thread (one mutex).
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_PLATFORM_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_PLATFORM_H_

#include <cstdint>
#include <memory>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "agent/platform/platform.h"
#include "agent/platform/twin/perf_model.h"
#include "agent/platform/twin/twin_class.h"
#include "agent/platform/twin/twin_random.h"

namespace powersweep {

struct TwinPlatformOptions {
  std::string device_class;  // a TwinClassNames() entry
  int64_t instance = 0;      // >= 0
  uint64_t seed = 1;
  std::string device_id;     // empty = "<class>-twin-<instance>"
  std::string agent_version;
  // A deliberate offset on top of the seeded variation: every time of this
  // instance is multiplied by it (1.15: 15% slower). In (0, 10].
  double slowdown = 1.0;
  // A test hook (--twin_temperature_file): while this file exists and
  // holds a number, every sample carries a sensor "injected" reading that
  // many degrees C, e.g. to make the agent's health check fail. Empty: off.
  std::string temperature_file;
};

class PowerCatalog;

class TwinPlatform : public Platform {
 public:
  // InvalidArgument naming --device_class, --instance or --twin_slowdown
  // when unusable.
  static absl::StatusOr<std::unique_ptr<TwinPlatform>> Create(
      TwinPlatformOptions options);
  ~TwinPlatform() override;

  v1::DeviceIdentity Identity() const override;
  v1::DeviceCapabilities Capabilities() const override;
  absl::StatusOr<v1::AppliedPowerMode> Apply(
      const v1::PowerMode& mode) override;
  std::vector<int> RunCpus() const override;
  void Sample(const std::vector<int>& cpus,
              v1::TelemetrySample* sample) override;
  void Restore() override;
  std::vector<KnobReport> DescribeKnobs() override;  // twin_describe.cc
  std::vector<SensorReport> DescribeSensors() override;

  const TwinClass& twin_class() const { return *cls_; }
  const PerfModel& perf() const { return perf_; }
  uint64_t seed() const { return options_.seed; }
  int64_t instance() const { return options_.instance; }

  OperatingPoint Current() const;
  // The load Sample() reports until the next call.
  void SetLoad(const PhaseLoad& load);
  // The fraction (0..1) of data set split `key` ("gld23k:train") in this
  // twin's page cache: what earlier runs read and left there (0 when never
  // read). The twin runtime sets it after each run.
  double CachedFraction(const std::string& key) const;
  void SetCachedFraction(const std::string& key, double fraction);
  // 0, 1, 2, ...: the index of the run about to start (noise stream).
  int64_t NextRunIndex();

 private:
  TwinPlatform(TwinPlatformOptions options, const TwinClass* cls);

  const TwinPlatformOptions options_;
  const TwinClass* const cls_;
  const PerfModel perf_;
  // Owned; a pointer so this header does not pull in common/power.
  const std::unique_ptr<const PowerCatalog> catalog_;
  v1::DeviceIdentity identity_;

  mutable absl::Mutex mu_;
  OperatingPoint current_ ABSL_GUARDED_BY(mu_);
  PhaseLoad load_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, double> cached_splits_ ABSL_GUARDED_BY(mu_);
  int64_t runs_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_PLATFORM_H_
