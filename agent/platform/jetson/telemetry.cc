#include "agent/platform/jetson/telemetry.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "agent/platform/jetson/sysfs_io.h"

namespace powersweep {
namespace jetson {

JetsonTelemetry::JetsonTelemetry(const BoardInfo& board, std::string root)
    : root_(std::move(root)), total_rail_(board.total_rail) {
  if (board.gpu.present) {
    if (!board.gpu.load_path.empty()) {
      gpu_load_ = std::make_unique<ProcFile>(root_ + board.gpu.load_path);
    }
    gpu_freq_ = std::make_unique<ProcFile>(root_ + board.gpu.devfreq_dir +
                                           "/cur_freq");
  }
  if (board.emc.present) {
    emc_rate_ = std::make_unique<ProcFile>(root_ + board.emc.RatePath());
  }
  for (const Rail& r : board.rails) {
    RailFiles f;
    f.name = r.name;
    f.iio = !r.power_path.empty();
    f.mw_per_unit = r.power_in_uw ? 0.001 : 1.0;
    if (f.iio) {
      f.power = ProcFile(root_ + r.power_path);
    } else {
      f.voltage = ProcFile(root_ + r.voltage_path);
      f.current = ProcFile(root_ + r.current_path);
    }
    rails_.push_back(std::move(f));
  }
  for (const ThermalZone& z : board.thermal) {
    zones_.push_back(ZoneFiles{z.name, ProcFile(root_ + z.temp_path)});
  }
}

std::optional<int64_t> JetsonTelemetry::ReadInt(ProcFile& f) {
  absl::StatusOr<std::string> text = f.Read();
  int64_t v = 0;
  if (!text.ok() || !absl::SimpleAtoi(CleanText(*text), &v)) {
    return std::nullopt;
  }
  return v;
}

std::optional<double> JetsonTelemetry::RailPowerMw(RailFiles& r) {
  if (r.iio) {
    std::optional<int64_t> mw = ReadInt(r.power);
    if (!mw) return std::nullopt;
    return static_cast<double>(*mw) * r.mw_per_unit;
  }
  std::optional<int64_t> mv = ReadInt(r.voltage);
  std::optional<int64_t> ma = ReadInt(r.current);
  if (!mv || !ma) return std::nullopt;
  return static_cast<double>(*mv) * static_cast<double>(*ma) / 1000.0;
}

void JetsonTelemetry::Sample(const std::vector<int>& cpus,
                             v1::TelemetrySample* sample) {
  for (size_t i = 0;
       i < cpus.size() && i < static_cast<size_t>(sample->cores_size()); ++i) {
    auto it = core_freq_.find(cpus[i]);
    if (it == core_freq_.end()) {
      it = core_freq_
               .emplace(cpus[i],
                        ProcFile(absl::StrCat(root_, kCpuDir, "/cpu", cpus[i],
                                              "/cpufreq/scaling_cur_freq")))
               .first;
    }
    std::optional<int64_t> khz = ReadInt(it->second);
    if (khz) sample->mutable_cores(static_cast<int>(i))->set_freq_khz(*khz);
  }
  if (gpu_load_) {
    std::optional<int64_t> load = ReadInt(*gpu_load_);
    if (load) sample->set_gpu_util(static_cast<double>(*load) / 1000.0);
  }
  if (gpu_freq_) {
    std::optional<int64_t> hz = ReadInt(*gpu_freq_);
    if (hz) sample->set_gpu_freq_hz(*hz);
  }
  if (emc_rate_) {
    std::optional<int64_t> hz = ReadInt(*emc_rate_);
    if (hz) sample->set_mem_freq_hz(*hz);
  }
  double sum = 0;
  std::optional<double> total;
  bool any = false;
  for (size_t i = 0; i < rails_.size(); ++i) {
    std::optional<double> mw = RailPowerMw(rails_[i]);
    if (!mw) continue;
    any = true;
    v1::RailSample* rail = sample->add_rails();
    rail->set_name(rails_[i].name);
    rail->set_power_mw(*mw);
    rail->set_provenance(v1::PROVENANCE_MEASURED);
    sum += *mw;
    if (static_cast<int>(i) == total_rail_) total = *mw;
  }
  if (total_rail_ >= 0) {
    // The board has a total rail: it is the total, the others are parts.
    sample->set_power_mw(total.value_or(0));
    sample->set_power_provenance(total ? v1::PROVENANCE_MEASURED
                                       : v1::PROVENANCE_UNSPECIFIED);
  } else {
    sample->set_power_mw(any ? sum : 0);
    sample->set_power_provenance(any ? v1::PROVENANCE_MEASURED
                                     : v1::PROVENANCE_UNSPECIFIED);
  }
  for (ZoneFiles& z : zones_) {
    std::optional<int64_t> milli = ReadInt(z.temp);
    // Off (-256 C) or not answering (EAGAIN while power-gated): a gap.
    if (!milli || *milli == -256000) continue;
    v1::Temperature* t = sample->add_temperatures();
    t->set_name(z.name);
    t->set_celsius(static_cast<double>(*milli) / 1000.0);
  }
}

}  // namespace jetson
}  // namespace powersweep
