#include "controller/cli/import_command.h"

#include <chrono>
#include <iostream>
#include <memory>

#include "absl/time/time.h"
#include "controller/importer/tegrastats.h"
#include "grpcpp/grpcpp.h"

namespace powersweep {

int CmdImportTegrastats(v1::Control::StubInterface* stub,
                        const ImportOptions& import, const CliOptions& opt,
                        std::ostream& out, std::ostream& err) {
  absl::StatusOr<TegrastatsLog> log =
      ReadTegrastatsFile(import.file, import.interval_ms);
  if (!log.ok()) {
    err << "error: " << log.status().message() << "\n";
    return 1;
  }
  if (log->skipped_lines > 0) {
    err << "skipped " << log->skipped_lines
        << " lines that are not tegrastats samples (first: "
        << log->first_problem << ")\n";
  }
  const bool no_gpu_util = log->lines_without_gpu_util > 0;
  if (no_gpu_util) {
    err << "note: " << log->lines_without_gpu_util << " of "
        << log->samples.size()
        << " lines print no GPU utilisation (Thor's \"GR3D_FREQ @[...]\"): "
           "their gpu_util is stored as 0, not measured; the source says "
           "so\n";
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(10));
  v1::ImportTelemetryResponse resp;
  std::unique_ptr<grpc::ClientWriterInterface<v1::ImportTelemetryChunk>> writer =
      stub->ImportTelemetry(&ctx, &resp);
  const size_t per_chunk = import.chunk_samples > 0
                               ? static_cast<size_t>(import.chunk_samples)
                               : 2000;
  bool sent = true;
  size_t i = 0;
  do {
    v1::ImportTelemetryChunk chunk;
    if (i == 0) {
      chunk.set_device_id(import.device_id);
      chunk.set_source("tegrastats:" + import.file +
                       (no_gpu_util ? " (gpu_util not reported)" : ""));
      if (log->first_date.has_value()) {
        chunk.set_started_unix_ms(absl::ToUnixMillis(*log->first_date));
      }
    }
    for (size_t n = 0; n < per_chunk && i < log->samples.size(); ++n, ++i) {
      *chunk.add_samples() = log->samples[i];
    }
    sent = writer->Write(chunk);
  } while (sent && i < log->samples.size());
  writer->WritesDone();
  grpc::Status st = writer->Finish();
  if (!st.ok()) {
    if (st.error_code() == grpc::StatusCode::UNAVAILABLE ||
        st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      err << "error: cannot reach the controller at " << opt.controller << ": "
          << st.error_message() << "\n";
      return 3;
    }
    err << "error: " << st.error_message() << "\n";
    return 1;
  }
  out << "imported " << resp.samples() << " samples from " << import.file
      << " as run " << resp.run_id() << " of sweep " << resp.sweep_id()
      << " (device " << import.device_id << ")\n";
  return 0;
}

}  // namespace powersweep
