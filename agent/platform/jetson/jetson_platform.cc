#include "agent/platform/jetson/jetson_platform.h"

#include <unistd.h>

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/telemetry/proc_readers.h"
#include "common/log.h"
#include "common/status_macros.h"

namespace powersweep {
namespace jetson {

absl::StatusOr<std::unique_ptr<JetsonPlatform>> JetsonPlatform::Create(
    JetsonPlatformOptions options, Clock* clock, std::unique_ptr<SysfsIo> io) {
  if (!io) io = std::make_unique<RealSysfsIo>(options.sysfs_root);
  PS_ASSIGN_OR_RETURN(BoardInfo board, DiscoverBoard(*io));
  PS_RETURN_IF_ERROR(
      RestoreFromStateFile(*io, board, options.restore_state_path));
  BoardPresets presets;
  if (!options.presets && options.board_presets) {
    presets = LoadBoardPresets(*io, board, PowerCatalog::Default());
    for (const std::string& w : presets.warnings) PS_LOG(WARNING) << w;
    options.presets = MakePresetResolver(presets, board);
  }
  return std::unique_ptr<JetsonPlatform>(
      new JetsonPlatform(std::move(options), clock, std::move(io),
                         std::move(board), std::move(presets)));
}

JetsonPlatform::JetsonPlatform(JetsonPlatformOptions options, Clock* clock,
                               std::unique_ptr<SysfsIo> io, BoardInfo board,
                               BoardPresets presets)
    : options_(std::move(options)),
      clock_(clock),
      board_(std::move(board)),
      presets_(std::move(presets)),
      io_(std::move(io)),
      telemetry_(board_, io_->root()) {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  identity_.set_device_id(options_.device_id.empty() ? host
                                                     : options_.device_id);
  identity_.set_device_class(board_.device_class);
  identity_.set_platform("jetson");
  identity_.set_hostname(host);
  identity_.set_serial(board_.serial);
  identity_.set_kernel(board_.kernel);
  identity_.set_l4t_release(board_.l4t_release);
  identity_.set_module(board_.model);
  identity_.set_nvpmodel(presets_.nvpmodel_fingerprint);
  identity_.set_agent_version(options_.agent_version);
  absl::StatusOr<MemInfo> mem = MeminfoReader(io_->root() + "/proc").Read();
  if (mem.ok()) memory_bytes_ = mem->total_bytes;
  run_cpus_ = OnlineCpus(*io_, board_);
}

v1::DeviceIdentity JetsonPlatform::Identity() const { return identity_; }

ProbeDetails JetsonPlatform::DescribeProbe() {
  ProbeDetails out;
  out.root = options_.sysfs_root;
  out.details = {{"model", board_.model},
                 {"chip id", absl::StrCat(board_.chip_id)},
                 {"JetPack", absl::StrCat(board_.jetpack)}};
  out.details.push_back(
      {"GPU power gating",
       presets_.current_pg_mask < 0
           ? "unknown (no power-gating file, no nvpmodel status): modes "
             "that need a reboot are not detected"
           : absl::StrCat("mask ", presets_.current_pg_mask, " (",
                          presets_.current_pg_mask_source, ")")});
  std::vector<std::string> reboot;
  out.presets_source = presets_.nvpmodel_source;
  out.preset_names.emplace();
  for (const PresetMode& p : presets_.modes) {
    out.preset_names->push_back(p.name);
    if (!RebootNeed(p, presets_).empty()) reboot.push_back(p.name);
  }
  if (!reboot.empty()) {
    out.details.push_back({"need a reboot", absl::StrJoin(reboot, " ")});
  }
  out.warnings = presets_.warnings;
  return out;
}

std::optional<RebootTarget> JetsonPlatform::RebootFor(
    const v1::PowerMode& mode) {
  if (mode.preset().empty()) return std::nullopt;
  for (const PresetMode& p : presets_.modes) {
    if (p.name != mode.preset()) continue;
    std::string reason = RebootNeed(p, presets_);
    if (reason.empty() || p.nvpmodel_id < 0) return std::nullopt;
    return RebootTarget{p.name, p.nvpmodel_id, std::move(reason)};
  }
  return std::nullopt;
}

v1::DeviceCapabilities JetsonPlatform::Capabilities() const {
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(static_cast<int32_t>(board_.cpus.size()));
  if (!board_.clusters.empty()) {
    for (int64_t f : board_.clusters[0].freqs_khz) caps.add_cpu_freqs_khz(f);
  }
  for (int64_t f : board_.gpu.freqs_hz) caps.add_gpu_freqs_hz(f);
  if (board_.emc.present) {
    for (int64_t f : board_.emc.rates_hz) caps.add_mem_freqs_hz(f);
  }
  caps.set_memory_bytes(memory_bytes_);
  return caps;
}

absl::Status JetsonPlatform::PersistLocked() {
  if (options_.restore_state_path.empty() || !saved_) return absl::OkStatus();
  return WriteRestoreFile(options_.restore_state_path, *saved_);
}

void JetsonPlatform::DeleteStateFile() {
  if (options_.restore_state_path.empty()) return;
  std::error_code ec;
  std::filesystem::remove(options_.restore_state_path, ec);
}

absl::StatusOr<v1::AppliedPowerMode> JetsonPlatform::Apply(
    const v1::PowerMode& mode) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(ModePlan plan,
                      PlanMode(*io_, board_, mode, options_.presets));
  if (!plan.empty()) {
    if (!saved_) {
      absl::StatusOr<BoardState> state = RecordState(*io_, board_);
      if (!state.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot record the board's mode for restore: ",
            state.status().message()));
      }
      saved_ = *std::move(state);
    }
    saved_->cores_touched |= plan.cpu_cores > 0;
    saved_->cpu_touched |= plan.cpu_freq_khz > 0;
    saved_->gpu_touched |= plan.gpu_freq_hz > 0;
    saved_->emc_touched |= plan.mem_freq_hz > 0;
    if (plan.mem_freq_hz > 0 && !saved_->has_emc) {
      return absl::FailedPreconditionError(absl::StrCat(
          "mem_freq_hz: ", io_->Resolve(board_.emc.Path("mrq_rate_locked")),
          " or ", io_->Resolve(board_.emc.Path("state")),
          ": not readable, the EMC lock could not be recorded for restore"));
    }
    PS_RETURN_IF_ERROR(PersistLocked());
    absl::Status written = WriteMode(*io_, board_, plan, saved_->gpu_control);
    if (!written.ok()) {
      absl::Status undo = RestoreState(*io_, *saved_);
      if (undo.ok()) {
        saved_.reset();
        DeleteStateFile();
      }
      run_cpus_ = OnlineCpus(*io_, board_);
      return absl::Status(
          written.code(),
          absl::StrCat(written.message(),
                       undo.ok() ? " (the board's previous mode was restored)"
                                 : absl::StrCat(" (restoring the previous mode "
                                                "also failed: ",
                                                undo.message(), ")")));
    }
  }
  v1::AppliedPowerMode applied =
      ReadBack(*io_, board_, mode, plan, clock_, options_.settle);
  run_cpus_ = OnlineCpus(*io_, board_);
  return applied;
}

std::vector<int> JetsonPlatform::RunCpus() const {
  absl::MutexLock lock(&mu_);
  return run_cpus_;
}

void JetsonPlatform::Sample(const std::vector<int>& cpus,
                            v1::TelemetrySample* sample) {
  absl::MutexLock lock(&mu_);
  telemetry_.Sample(cpus, sample);
}

absl::Status JetsonPlatform::RestoreWithStatus() {
  absl::MutexLock lock(&mu_);
  absl::Status s;
  if (saved_) {
    s = RestoreState(*io_, *saved_);
    if (s.ok()) {
      saved_.reset();
      DeleteStateFile();
    }
  }
  run_cpus_ = OnlineCpus(*io_, board_);
  return s;
}

void JetsonPlatform::Restore() {
  absl::Status s = RestoreWithStatus();
  if (!s.ok()) {
    PS_LOG(ERROR) << "restoring the board's mode failed (will retry): "
                  << s.message();
  }
}

}  // namespace jetson
}  // namespace powersweep
