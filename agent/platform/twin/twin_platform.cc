#include "agent/platform/twin/twin_platform.h"

#include "common/power/clock_latency.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/platform/twin/twin_mode.h"
#include "common/power/power_catalog.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

InstanceVariation Slowed(InstanceVariation v, double slowdown) {
  v.speed /= slowdown;
  return v;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TwinPlatform>> TwinPlatform::Create(
    TwinPlatformOptions options) {
  const TwinClass* cls = FindTwinClass(options.device_class);
  if (cls == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--device_class: \"", options.device_class,
        "\" is not a twin class (one of: ",
        absl::StrJoin(TwinClassNames(), ", "), ")"));
  }
  if (!(options.slowdown > 0 && options.slowdown <= 10)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--twin_slowdown: must be in (0, 10], got ", options.slowdown));
  }
  if (options.instance < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--instance: must be >= 0, got ", options.instance));
  }
  return std::unique_ptr<TwinPlatform>(
      new TwinPlatform(std::move(options), cls));
}

TwinPlatform::TwinPlatform(TwinPlatformOptions options, const TwinClass* cls)
    : options_(std::move(options)),
      cls_(cls),
      perf_(cls, Slowed(VariationFor(options_.seed, cls->name,
                                     options_.instance),
                        options_.slowdown)),
      catalog_(std::make_unique<const PowerCatalog>(PowerCatalog::Default())) {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  utsname u;
  identity_.set_device_id(
      options_.device_id.empty()
          ? absl::StrCat(cls_->name, "-twin-", options_.instance)
          : options_.device_id);
  identity_.set_device_class(cls_->name);
  identity_.set_platform("twin");
  identity_.set_hostname(host);
  if (uname(&u) == 0) identity_.set_kernel(u.release);
  identity_.set_serial(absl::StrCat("TWIN-", cls_->name, "-",
                                    options_.instance, "-", options_.seed));
  identity_.set_l4t_release("simulated");
  identity_.set_module(cls_->model);
  identity_.set_nvpmodel("simulated");
  identity_.set_agent_version(options_.agent_version);
  current_ = cls_->Max();
  load_ = perf_.IdleLoad(current_);
}

TwinPlatform::~TwinPlatform() = default;

v1::DeviceIdentity TwinPlatform::Identity() const { return identity_; }

v1::DeviceCapabilities TwinPlatform::Capabilities() const {
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(cls_->cores);
  for (int64_t f : cls_->cpu_freqs_khz) caps.add_cpu_freqs_khz(f);
  for (int64_t f : cls_->gpu_freqs_hz) caps.add_gpu_freqs_hz(f);
  for (int64_t f : cls_->mem_freqs_hz) caps.add_mem_freqs_hz(f);
  caps.set_memory_bytes(cls_->memory_bytes);
  return caps;
}

absl::StatusOr<v1::AppliedPowerMode> TwinPlatform::Apply(
    const v1::PowerMode& mode) {
  if (mode.gpu_power_limit_w() != 0) {
    return absl::InvalidArgumentError(
        "gpu_power_limit_w: a twin (a simulated Jetson) has no GPU power "
        "limit (a host GPU's knob, set through NVML)");
  }
  std::vector<std::string> notes;
  PS_ASSIGN_OR_RETURN(OperatingPoint op,
                      ResolvePowerMode(*cls_, *catalog_, mode, &notes));
  v1::AppliedPowerMode applied;
  *applied.mutable_requested() = mode;
  *applied.mutable_actual() = ToPowerMode(op, mode);
  applied.set_cores_provenance(v1::PROVENANCE_SIMULATED);
  applied.set_cpu_freq_provenance(v1::PROVENANCE_SIMULATED);
  applied.add_notes(absl::StrCat("simulated ", cls_->name, " twin instance ",
                                 options_.instance,
                                 ": no hardware knob was written"));
  for (const std::string& note : notes) applied.add_notes(note);
  absl::MutexLock lock(&mu_);
  // Modeled: a board's documented clock latencies of the knobs that move.
  applied.set_settle_s(absl::ToDoubleSeconds(ClockSettleLatency(
      op.cores != current_.cores || op.cpu_khz != current_.cpu_khz,
      op.gpu_hz != current_.gpu_hz, op.mem_hz != current_.mem_hz)));
  current_ = op;
  load_ = perf_.IdleLoad(current_);
  return applied;
}

std::vector<int> TwinPlatform::RunCpus() const {
  absl::MutexLock lock(&mu_);
  std::vector<int> cpus;
  for (int i = 0; i < current_.cores; ++i) cpus.push_back(i);
  return cpus;
}

void TwinPlatform::Sample(const std::vector<int>& /*cpus*/,
                          v1::TelemetrySample* sample) {
  {
    absl::MutexLock lock(&mu_);
    FillTwinSample(*cls_, perf_.variation(), current_, load_, sample);
  }
  if (options_.temperature_file.empty()) return;
  std::ifstream file(options_.temperature_file);
  double celsius = 0;
  if (file >> celsius) {
    v1::Temperature* t = sample->add_temperatures();
    t->set_name("injected");
    t->set_celsius(celsius);
  }
}

void TwinPlatform::Restore() {
  absl::MutexLock lock(&mu_);
  current_ = cls_->Max();
  load_ = perf_.IdleLoad(current_);
}

OperatingPoint TwinPlatform::Current() const {
  absl::MutexLock lock(&mu_);
  return current_;
}

void TwinPlatform::SetLoad(const PhaseLoad& load) {
  absl::MutexLock lock(&mu_);
  load_ = load;
}

double TwinPlatform::CachedFraction(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  auto it = cached_splits_.find(key);
  return it == cached_splits_.end() ? 0 : it->second;
}

void TwinPlatform::SetCachedFraction(const std::string& key, double fraction) {
  absl::MutexLock lock(&mu_);
  cached_splits_[key] = std::min(1.0, std::max(0.0, fraction));
}

int64_t TwinPlatform::NextRunIndex() {
  absl::MutexLock lock(&mu_);
  return runs_++;
}

}  // namespace powersweep
