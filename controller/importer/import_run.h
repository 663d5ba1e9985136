// TelemetryImport: stores telemetry that did not come from a run of this
// controller (e.g. a tegrastats log) as a run of its own, so it is listed,
// summarized and exported like any other run.
//
// Begin() creates a sweep named "import: SOURCE" with one run of the
// device's class (task and runtime unspecified and no model, so the
// scheduler never hands it to an agent), leases it to the device and marks
// it RUNNING. Add() stores samples as the run's next data batch (seq 1, 2,
// ...). Finish() stores a result (ok, duration = the last t_s, and the
// energy integrated over the samples' power readings with their
// provenance and span, so run_results holds it as for an agent's run) and
// marks the run DONE. Abort() marks it FAILED with the reason. A run whose import
// is interrupted therefore never stays RUNNING unless the controller dies.
//
// Not thread-safe: one import per object, driven by one thread.
#ifndef POWERSWEEP_CONTROLLER_IMPORTER_IMPORT_RUN_H_
#define POWERSWEEP_CONTROLLER_IMPORTER_IMPORT_RUN_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "powersweep/v1/control.pb.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/telemetry.pb.h"
#include "common/clock.h"
#include "storage/store.h"

namespace powersweep {

class TelemetryImport {
 public:
  // `store` must outlive the import. InvalidArgument for an empty
  // device_id or class; storage errors as returned by the Store.
  static absl::StatusOr<TelemetryImport> Begin(Store* store,
                                               const v1::DeviceIdentity& device,
                                               const std::string& source,
                                               absl::Time now);

  absl::Status Add(const std::vector<v1::TelemetrySample>& samples);
  absl::StatusOr<v1::ImportTelemetryResponse> Finish(absl::Time now);
  void Abort(const std::string& reason, absl::Time now);

  int64_t run_id() const { return run_id_; }

 private:
  TelemetryImport(Store* store, int64_t sweep_id, int64_t run_id)
      : store_(store), sweep_id_(sweep_id), run_id_(run_id) {}

  Store* store_;
  int64_t sweep_id_;
  int64_t run_id_;
  int64_t seq_ = 0;
  int64_t samples_ = 0;
  double last_t_s_ = 0;
  struct Reading {
    double t_s;
    double power_mw;
    v1::Provenance provenance;
  };
  std::vector<Reading> readings_;  // samples with power, for the energy
};

// The controller's default --max_import_samples: a day of tegrastats at
// 100 ms is 864,000 samples.
inline constexpr int64_t kDefaultMaxImportSamples = 1000000;

// A whole Control.ImportTelemetry call: `next` fills the next chunk and
// returns false at the end of the stream. The first chunk names a device
// of `devices` (NotFound otherwise) and the source; each chunk's samples
// become one data batch. The whole stream is read before anything is
// stored: one with more than `max_samples` samples is refused with
// ResourceExhausted naming --max_import_samples, and nothing is stored
// (reading stops at the first chunk over the limit). On a storage error
// the run is marked FAILED and the error returned. `clock` gives the
// stored times.
absl::StatusOr<v1::ImportTelemetryResponse> ImportTelemetryChunks(
    Store* store, const std::vector<v1::DeviceStatus>& devices,
    const std::function<bool(v1::ImportTelemetryChunk*)>& next, Clock* clock,
    int64_t max_samples = kDefaultMaxImportSamples);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_IMPORTER_IMPORT_RUN_H_
