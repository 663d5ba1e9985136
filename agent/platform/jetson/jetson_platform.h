// JetsonPlatform: the Platform of an NVIDIA Jetson (Orin AGX, Xavier AGX,
// Xavier NX, Nano; JetPack 4, 5 and 6 layouts), driven through sysfs and
// BPMP debugfs under a root directory ("/" on a board, a fixture tree in
// tests). See discovery.h (what is found), apply.h (how a mode is set and
// verified), board_state.h (restore) and telemetry.h (sampling).
//
// Restore contract: before the first Apply that changes the board (and
// again after each Restore) the current knobs are recorded. When a state
// file is configured it is written before the first change and deleted
// after a successful Restore; Create() finds a leftover file (the agent
// died with a custom mode applied), restores the board from it and deletes
// it, before anything else. A Restore that fails keeps the record and the
// file so the next Restore (or start) tries again. The file's entries are
// checked against discovery before anything is written (restore_file.h).
//
// Errors of Apply: InvalidArgument naming the PowerMode field (unknown or
// unresolvable preset, values not in the board's tables with the nearest
// valid ones); FailedPrecondition naming the file (knob missing, e.g. no
// debugfs under secure boot; not writable when not root). After a failed
// write midway the recorded state is written back.
//
// Thread safety: every method may be called from any thread; mutable state
// is guarded by a mutex (Sample runs on the sampler thread).
#ifndef POWERSWEEP_AGENT_PLATFORM_JETSON_JETSON_PLATFORM_H_
#define POWERSWEEP_AGENT_PLATFORM_JETSON_JETSON_PLATFORM_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "agent/platform/jetson/apply.h"
#include "agent/platform/jetson/board_presets.h"
#include "agent/platform/jetson/board_state.h"
#include "agent/platform/jetson/discovery.h"
#include "agent/platform/jetson/restore_file.h"
#include "agent/platform/jetson/sysfs_io.h"
#include "agent/platform/jetson/telemetry.h"
#include "agent/platform/platform.h"
#include "common/clock.h"

namespace powersweep {
namespace jetson {

struct JetsonPlatformOptions {
  std::string sysfs_root = "/";
  std::string device_id;            // empty = the hostname
  std::string agent_version;
  PresetResolver presets;           // empty: see board_presets
  // With no `presets`: true resolves preset names through the board's
  // nvpmodel.conf and the class's study modes (board_presets.h); false
  // rejects presets.
  bool board_presets = false;
  std::string restore_state_path;   // e.g. <work_dir>/jetson-restore.json
  SettleOptions settle;
};

class JetsonPlatform : public Platform {
 public:
  // Discovers the board through `io` (RealSysfsIo(options.sysfs_root) when
  // null) and restores it from a leftover state file. `clock` must outlive
  // the platform. FailedPrecondition when this is not a supported Jetson or
  // the leftover state cannot be restored (the message names the file).
  static absl::StatusOr<std::unique_ptr<JetsonPlatform>> Create(
      JetsonPlatformOptions options, Clock* clock,
      std::unique_ptr<SysfsIo> io = nullptr);

  v1::DeviceIdentity Identity() const override;
  v1::DeviceCapabilities Capabilities() const override;
  absl::StatusOr<v1::AppliedPowerMode> Apply(
      const v1::PowerMode& mode) override;
  std::vector<int> RunCpus() const override;
  void Sample(const std::vector<int>& cpus,
              v1::TelemetrySample* sample) override;
  void Restore() override;
  std::vector<KnobReport> DescribeKnobs() override;     // describe.cc
  std::vector<SensorReport> DescribeSensors() override;
  // The sysfs root, the board's model, chip and JetPack, its presets.
  ProbeDetails DescribeProbe() override;
  std::optional<RebootTarget> RebootFor(const v1::PowerMode& mode) override;

  // Restore() with its outcome.
  absl::Status RestoreWithStatus();
  const BoardInfo& board() const { return board_; }
  // The named modes found at Create (empty unless options.board_presets).
  const BoardPresets& presets() const { return presets_; }

 private:
  JetsonPlatform(JetsonPlatformOptions options, Clock* clock,
                 std::unique_ptr<SysfsIo> io, BoardInfo board,
                 BoardPresets presets);

  absl::Status PersistLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DeleteStateFile();

  const JetsonPlatformOptions options_;
  Clock* const clock_;
  const BoardInfo board_;
  const BoardPresets presets_;
  v1::DeviceIdentity identity_;
  int64_t memory_bytes_ = 0;

  mutable absl::Mutex mu_;
  std::unique_ptr<SysfsIo> io_ ABSL_GUARDED_BY(mu_);
  std::optional<BoardState> saved_ ABSL_GUARDED_BY(mu_);
  std::vector<int> run_cpus_ ABSL_GUARDED_BY(mu_);
  JetsonTelemetry telemetry_ ABSL_GUARDED_BY(mu_);
};

}  // namespace jetson

using jetson::JetsonPlatform;
using jetson::JetsonPlatformOptions;

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_JETSON_PLATFORM_H_
