#include "agent/platform/host/gpu_knobs.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "agent/util/state_dir.h"
#include "common/power/mode_space.h"

namespace powersweep {
namespace {

constexpr char kHeader[] = "powersweep-host-gpu-restore 1";

int64_t CeilW(int64_t mw) { return (mw + 999) / 1000; }

}  // namespace

HostGpuKnobs::HostGpuKnobs(NvmlGpu* gpu, std::string restore_path)
    : gpu_(gpu), restore_path_(std::move(restore_path)) {
  const NvmlGpuInfo& info = gpu_->info();
  absl::StatusOr<int64_t> limit = gpu_->PowerLimitMw();
  has_limit_ = limit.ok() && info.limit_max_mw > 0;
  if (limit.ok()) original_limit_mw_ = *limit;
  if (!has_limit_) return;
  // Writing the current limit back changes nothing and tells whether this
  // process may set the knobs.
  absl::Status probe = gpu_->SetPowerLimitMw(*limit);
  if (absl::IsPermissionDenied(probe)) {
    not_settable_ = absl::StrCat("no permission: ", probe.message(),
                                 " (run the agent as root)");
  } else if (absl::IsUnimplemented(probe)) {
    has_limit_ = false;
  }
}

int32_t HostGpuKnobs::min_limit_w() const {
  return static_cast<int32_t>(CeilW(gpu_->info().limit_min_mw));
}

int32_t HostGpuKnobs::max_limit_w() const {
  return static_cast<int32_t>(gpu_->info().limit_max_mw / 1000);
}

bool HostGpuKnobs::clock_settable() const {
  return not_settable_.empty() && !gpu_->info().sm_clocks_mhz.empty();
}

absl::Status HostGpuKnobs::Check(int32_t limit_w, int64_t freq_hz) const {
  const NvmlGpuInfo& info = gpu_->info();
  std::vector<std::string> problems;
  const std::string gpu = absl::StrCat("GPU ", info.index, " (", info.name,
                                       ")");
  if (limit_w < 0) {
    problems.push_back(absl::StrCat("gpu_power_limit_w: must not be negative, "
                                    "got ", limit_w));
  } else if (limit_w > 0) {
    if (!not_settable_.empty()) {
      problems.push_back(absl::StrCat("gpu_power_limit_w: not settable on ",
                                      gpu, ": ", not_settable_));
    } else if (!has_limit_) {
      problems.push_back(absl::StrCat("gpu_power_limit_w: ", gpu,
                                      " has no settable power limit (NVML)"));
    } else if (limit_w < min_limit_w() || limit_w > max_limit_w()) {
      problems.push_back(absl::StrCat("gpu_power_limit_w: ", limit_w,
                                      " W is outside ", gpu, "'s range ",
                                      min_limit_w(), "..", max_limit_w(),
                                      " W"));
    }
  }
  if (freq_hz < 0) {
    problems.push_back(
        absl::StrCat("gpu_freq_hz: must not be negative, got ", freq_hz));
  } else if (freq_hz > 0) {
    const std::vector<int64_t>& clocks = info.sm_clocks_mhz;
    if (!not_settable_.empty()) {
      problems.push_back(absl::StrCat("gpu_freq_hz: not settable on ", gpu,
                                      ": ", not_settable_));
    } else if (clocks.empty()) {
      problems.push_back(absl::StrCat(
          "gpu_freq_hz: ", gpu, " lists no supported SM clocks (NVML)"));
    } else if (freq_hz % 1'000'000 != 0 ||
               !std::binary_search(clocks.begin(), clocks.end(),
                                   freq_hz / 1'000'000)) {
      const std::vector<int64_t> near =
          NearestValues(info.SmClocksHz(), freq_hz);
      problems.push_back(absl::StrCat(
          "gpu_freq_hz: ", freq_hz, " is not a supported SM clock of ", gpu,
          " (nearest: ", absl::StrJoin(near, ", "), ")"));
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(problems, "; "));
}

absl::StatusOr<GpuKnobSetting> HostGpuKnobs::Apply(int32_t limit_w,
                                                   int64_t freq_hz) {
  absl::Status ok = Check(limit_w, freq_hz);
  if (!ok.ok()) return ok;
  GpuKnobSetting out;
  const bool touch_limit = limit_w > 0 || limit_changed_;
  const bool touch_clock = freq_hz > 0 || clocks_locked_;
  if (!touch_limit && !touch_clock) return out;
  if (freq_hz > 0) clocks_locked_ = true;  // recorded before the write
  if (limit_w > 0) limit_changed_ = true;
  absl::Status written = WriteRestoreFile();
  if (!written.ok()) return written;
  const std::string gpu = absl::StrCat("GPU ", gpu_->info().index);
  int64_t previous_mw = original_limit_mw_;
  if (absl::StatusOr<int64_t> now = gpu_->PowerLimitMw(); now.ok()) {
    previous_mw = *now;
  }
  if (touch_limit) {
    const int64_t target =
        limit_w > 0 ? int64_t{limit_w} * 1000 : original_limit_mw_;
    absl::Status s = gpu_->SetPowerLimitMw(target);
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("gpu_power_limit_w: ", s.message()));
    }
  }
  if (touch_clock) {
    absl::Status s = freq_hz > 0 ? gpu_->LockSmClock(freq_hz / 1'000'000)
                                 : gpu_->ResetSmClock();
    if (!s.ok()) {
      // Nothing is changed on error: the limit goes back.
      if (touch_limit) (void)gpu_->SetPowerLimitMw(previous_mw);
      if (freq_hz > 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "gpu_freq_hz: cannot lock the SM clock of ", gpu, ": ",
            s.message()));
      }
      return absl::InternalError(absl::StrCat(
          "cannot reset the locked SM clock of ", gpu, ": ", s.message()));
    }
    if (freq_hz == 0) clocks_locked_ = false;
  }
  if (limit_w > 0) {
    absl::StatusOr<int64_t> back = gpu_->PowerLimitMw();
    if (back.ok()) {
      out.power_limit_w = static_cast<int32_t>(*back / 1000);
      if (*back != int64_t{limit_w} * 1000) {
        out.notes.push_back(absl::StrCat("gpu_power_limit_w: ", limit_w,
                                         " W asked, NVML reads back ",
                                         *back / 1000.0, " W"));
      }
    }
  } else if (limit_changed_) {
    limit_changed_ = false;
  }
  if (freq_hz > 0) {
    absl::StatusOr<int64_t> mhz = gpu_->SmClockMhz();
    if (mhz.ok()) {
      out.sm_clock_hz = *mhz * 1'000'000;
      if (out.sm_clock_hz != freq_hz) {
        out.notes.push_back(absl::StrCat(
            "gpu_freq_hz: locked at ", freq_hz, " Hz, the SM clock reads ",
            out.sm_clock_hz, " Hz"));
      }
    }
  }
  if (!limit_changed_ && !clocks_locked_) RemoveRestoreFile();
  return out;
}

std::vector<std::string> HostGpuKnobs::Restore() {
  std::vector<std::string> notes;
  if (limit_changed_) {
    absl::Status s = gpu_->SetPowerLimitMw(original_limit_mw_);
    if (!s.ok()) notes.push_back(std::string(s.message()));
    limit_changed_ = false;
  }
  if (clocks_locked_) {
    absl::Status s = gpu_->ResetSmClock();
    if (!s.ok()) notes.push_back(std::string(s.message()));
    clocks_locked_ = false;
  }
  if (notes.empty()) RemoveRestoreFile();
  return notes;
}

absl::Status HostGpuKnobs::WriteRestoreFile() {
  if (restore_path_.empty()) return absl::OkStatus();
  const std::string text = absl::StrCat(
      kHeader, "\nuuid ", gpu_->info().uuid, "\npower_limit_mw ",
      limit_changed_ ? original_limit_mw_ : 0, "\nclocks_locked ",
      clocks_locked_ ? 1 : 0, "\n");
  absl::Status s = WriteStateFile(restore_path_, text);
  if (!s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write the GPU restore file: ", s.message()));
  }
  return absl::OkStatus();
}

void HostGpuKnobs::RemoveRestoreFile() {
  if (restore_path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(restore_path_, ec);
}

absl::Status HostGpuKnobs::RestoreFromFile(NvmlGpu& gpu,
                                           const std::string& path,
                                           std::vector<std::string>* notes) {
  absl::StatusOr<std::optional<std::string>> text = ReadStateFile(path);
  if (!text.ok()) return text.status();
  if (!text->has_value()) return absl::OkStatus();
  std::vector<std::string> lines = absl::StrSplit(**text, '\n');
  if (lines.empty() || lines.front() != kHeader) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is not a GPU restore file (first line is not \"",
                     kHeader, "\")"));
  }
  std::map<std::string, std::string> values;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::pair<std::string, std::string> kv =
        absl::StrSplit(lines[i], absl::MaxSplits(' ', 1));
    if (!kv.first.empty()) values[kv.first] = kv.second;
  }
  if (values["uuid"] != gpu.info().uuid) {
    notes->push_back(absl::StrCat(path, " is for GPU ", values["uuid"],
                                  ", not ", gpu.info().uuid, ": left alone"));
    return absl::OkStatus();
  }
  int64_t limit_mw = 0;
  int locked = 0;
  if (!absl::SimpleAtoi(values["power_limit_mw"], &limit_mw) ||
      !absl::SimpleAtoi(values["clocks_locked"], &locked) || limit_mw < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": power_limit_mw and clocks_locked must be integers"));
  }
  std::vector<std::string> failed;
  if (limit_mw > 0) {
    absl::Status s = gpu.SetPowerLimitMw(limit_mw);
    if (s.ok()) {
      notes->push_back(absl::StrCat("GPU power limit set back to ",
                                    limit_mw / 1000.0, " W (", path, ")"));
    } else {
      failed.push_back(std::string(s.message()));
    }
  }
  if (locked != 0) {
    absl::Status s = gpu.ResetSmClock();
    if (s.ok()) {
      notes->push_back(absl::StrCat("GPU locked clocks reset (", path, ")"));
    } else {
      failed.push_back(std::string(s.message()));
    }
  }
  if (!failed.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot restore the GPU from ", path, ": ",
        absl::StrJoin(failed, "; ")));
  }
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return absl::OkStatus();
}

}  // namespace powersweep
