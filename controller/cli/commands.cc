#include "controller/cli/commands.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "controller/cli/lab_commands.h"
#include "controller/cli/mode_tables.h"
#include "controller/cli/run_tables.h"
#include "controller/cli/variability_format.h"
#include "controller/sweep/sweep_file.h"
#include "grpcpp/grpcpp.h"

namespace powersweep {

std::unique_ptr<grpc::ClientContext> RpcContext(double deadline_s) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(
                        static_cast<int64_t>(deadline_s * 1000)));
  return ctx;
}

int ReportRpcError(const grpc::Status& st, const CliOptions& opt,
                   std::ostream& err) {
  if (st.error_code() == grpc::StatusCode::UNAVAILABLE ||
      st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    err << "error: cannot reach the controller at " << opt.controller << ": "
        << st.error_message()
        << "\n(is powersweep-controller running there? set --controller)\n";
    return kExitUnreachable;
  }
  err << "error: " << st.error_message() << "\n";
  return kExitFailed;
}

namespace {


}  // namespace

int CmdSubmit(v1::Control::StubInterface* stub, const std::string& file,
              const CliOptions& opt, std::ostream& out, std::ostream& err) {
  auto spec = LoadSweepFile(file);
  if (!spec.ok()) {
    err << "error: " << spec.status().message() << "\n";
    return kExitFailed;
  }
  v1::SubmitSweepRequest req;
  *req.mutable_spec() = *spec;
  v1::SubmitSweepResponse resp;
  auto ctx = RpcContext();
  grpc::Status st = stub->SubmitSweep(ctx.get(), req, &resp);
  if (!st.ok()) {
    if (st.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      err << "error: sweep " << file << " rejected, nothing stored:\n"
          << st.error_message() << "\n";
      return kExitFailed;
    }
    return ReportRpcError(st, opt, err);
  }
  for (const auto& w : resp.warnings()) err << "warning: " << w << "\n";
  if (opt.quiet) {
    out << resp.sweep_id() << "\n";
  } else {
    out << "sweep " << resp.sweep_id() << " ('" << spec->name()
        << "') submitted: " << resp.run_count() << " runs\n";
  }
  return kExitOk;
}

int CmdWatch(v1::Control::StubInterface* stub, const CliOptions& opt,
             std::ostream& out, std::ostream& err) {
  const bool tty = isatty(STDERR_FILENO) && &err == &std::cerr;
  std::string last_line;
  absl::Time last_print = absl::InfinitePast();
  int unreachable = 0;
  while (true) {
    v1::GetSweepRequest req;
    req.set_sweep_id(opt.sweep_id);
    v1::SweepStatus status;
    auto ctx = RpcContext(10);
    grpc::Status st = stub->GetSweep(ctx.get(), req, &status);
    if (!st.ok()) {
      const bool transient = st.error_code() == grpc::StatusCode::UNAVAILABLE;
      if (!transient || ++unreachable > 20) {
        if (tty) err << "\n";
        return ReportRpcError(st, opt, err);
      }
    } else {
      unreachable = 0;
      const double elapsed =
          absl::ToDoubleSeconds(absl::Now() -
                                absl::FromUnixMillis(status.created_unix_ms()));
      std::string line = ProgressLine(status, elapsed);
      if (tty) {
        err << "\r" << line << "\033[K" << std::flush;
      } else if (status.finished() ||
                 absl::Now() - last_print > absl::Seconds(5)) {
        // Without a terminal, print a line at most every 5 s.
        err << line << "\n";
        last_print = absl::Now();
      }
      last_line = line;
      if (status.finished()) {
        if (tty) err << "\n";
        const int bad = status.failed() + status.cancelled();
        out << "sweep " << status.sweep_id() << " finished: " << status.done()
            << " done, " << status.failed() << " failed, "
            << status.cancelled() << " cancelled\n";
        return bad > 0 ? kExitFailed : kExitOk;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(
        static_cast<int64_t>(opt.interval_s * 1000)));
  }
}

int CmdStatus(v1::Control::StubInterface* stub, const CliOptions& opt,
              std::ostream& out, std::ostream& err) {
  v1::ListSweepsResponse resp;
  auto ctx = RpcContext();
  grpc::Status st = stub->ListSweeps(ctx.get(), {}, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  Table t;
  t.header = {"sweep", "name", "created", "total", "pending", "active", "done",
              "failed", "cancelled", "state"};
  t.numeric = {true, false, false, true, true, true, true, true, true, false};
  for (const auto& s : resp.sweeps()) {
    t.rows.push_back(
        {std::to_string(s.sweep_id()), s.name(),
         absl::FormatTime("%Y-%m-%d %H:%M:%S",
                          absl::FromUnixMillis(s.created_unix_ms()),
                          absl::LocalTimeZone()),
         std::to_string(s.total()), std::to_string(s.pending()),
         std::to_string(s.active()), std::to_string(s.done()),
         std::to_string(s.failed()), std::to_string(s.cancelled()),
         s.finished() ? "finished" : "in progress"});
  }
  out << RenderTable(t, opt.format);
  return kExitOk;
}

int CmdDevices(v1::Control::StubInterface* stub, const CliOptions& opt,
               std::ostream& out, std::ostream& err) {
  v1::ListDevicesResponse resp;
  auto ctx = RpcContext();
  grpc::Status st = stub->ListDevices(ctx.get(), {}, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  out << RenderTable(DevicesTable(resp, absl::LocalTimeZone()), opt.format);
  return kExitOk;
}

int CmdDeviceModes(v1::Control::StubInterface* stub, const std::string& device,
                   const CliOptions& opt, std::ostream& out,
                   std::ostream& err) {
  v1::ListModesRequest req;
  req.set_device_id(device);
  v1::ListModesResponse resp;
  auto ctx = RpcContext();
  grpc::Status st = stub->ListModes(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  const bool text = opt.format == OutputFormat::kTable;
  (text ? out : err) << CustomSpaceLine(resp) << "\n"
                     << FrequencyLines(resp);
  // A host's GPU (NVML): its power-limit range, or why it has no knobs.
  if (resp.device_class() == "host") {
    v1::ListDevicesResponse devices;
    auto dctx = RpcContext();
    if (stub->ListDevices(dctx.get(), {}, &devices).ok()) {
      for (const v1::DeviceStatus& d : devices.devices()) {
        if (d.identity().device_id() != resp.device_id()) continue;
        (text ? out : err) << HostGpuLine(d.capabilities()) << "\n";
      }
    }
  }
  if (resp.presets_size() > 0 || !text) {
    if (text) out << "\n";
    out << RenderTable(ModesTable(resp), opt.format);
  }
  return kExitOk;
}

namespace {
int FetchRuns(v1::Control::StubInterface* stub, const CliOptions& opt,
              std::ostream& err, v1::ListRunsResponse* resp) {
  v1::ListRunsRequest req;
  req.set_sweep_id(opt.sweep_id);
  auto ctx = RpcContext(60);
  grpc::Status st = stub->ListRuns(ctx.get(), req, resp);
  return st.ok() ? kExitOk : ReportRpcError(st, opt, err);
}
}  // namespace

int CmdRuns(v1::Control::StubInterface* stub, const CliOptions& opt,
            std::ostream& out, std::ostream& err) {
  v1::ListRunsResponse resp;
  if (int rc = FetchRuns(stub, opt, err, &resp); rc != kExitOk) return rc;
  std::vector<v1::RunStatus> runs(resp.runs().begin(), resp.runs().end());
  out << RenderTable(RunsTable(runs), opt.format);
  return kExitOk;
}

int CmdSummary(v1::Control::StubInterface* stub, const CliOptions& opt,
               std::ostream& out, std::ostream& err) {
  v1::ListRunsResponse resp;
  if (int rc = FetchRuns(stub, opt, err, &resp); rc != kExitOk) return rc;
  std::vector<v1::RunStatus> runs(resp.runs().begin(), resp.runs().end());
  out << RenderTable(SummaryTable(runs), opt.format);
  return kExitOk;
}

int CmdCancel(v1::Control::StubInterface* stub, const CliOptions& opt,
              std::ostream& out, std::ostream& err) {
  v1::CancelRunsRequest req;
  req.set_sweep_id(opt.sweep_id);
  req.set_run_id(opt.run_id);
  v1::CancelRunsResponse resp;
  auto ctx = RpcContext();
  grpc::Status st = stub->CancelRuns(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  out << "cancelled " << resp.cancelled() << " run"
      << (resp.cancelled() == 1 ? "" : "s") << " of sweep " << opt.sweep_id
      << (resp.cancelled() > 0 ? " (running ones stop on their agents)" : "")
      << "\n";
  return kExitOk;
}

int CmdCompare(v1::Control::StubInterface* stub, const CliOptions& opt,
               std::ostream& out, std::ostream& err) {
  v1::CompareRequest req;
  req.set_sweep_id(opt.sweep_id);
  req.set_by(opt.by);
  for (const std::string& d : opt.devices) req.add_devices(d);
  for (const std::string& s : opt.sides) req.add_sides(s);
  v1::CompareResponse resp;
  auto ctx = RpcContext(120);
  grpc::Status st = stub->Compare(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  Table t;
  t.header.assign(resp.table().header().begin(), resp.table().header().end());
  t.numeric.assign(resp.table().numeric().begin(),
                   resp.table().numeric().end());
  for (const v1::TableRow& row : resp.table().rows()) {
    t.rows.emplace_back(row.cells().begin(), row.cells().end());
  }
  const bool text = opt.format == OutputFormat::kTable;
  if (t.rows.empty()) {
    err << "no cell of sweep " << opt.sweep_id << " has done runs on both "
        << "sides of --by " << opt.by << "\n";
  }
  out << RenderTable(t, opt.format);
  std::ostream& notes = text ? out : err;
  notes << (text ? "\n" : "") << "method: " << resp.method() << "\n";
  for (const std::string& w : resp.warnings()) notes << "warning: " << w << "\n";
  return kExitOk;
}

int CmdVariability(v1::Control::StubInterface* stub, const CliOptions& opt,
                   std::ostream& out, std::ostream& err) {
  v1::VariabilityRequest req;
  req.set_sweep_id(opt.sweep_id);
  req.set_metric(opt.metric);
  req.set_save_offsets(opt.save_offsets);
  v1::VariabilityResponse resp;
  auto ctx = RpcContext(120);
  grpc::Status st = stub->Variability(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  switch (opt.format) {
    case OutputFormat::kTable:
      out << VariabilityText(resp) << SavedOffsetsText(resp);
      break;
    case OutputFormat::kCsv:
      out << VariabilityCsv(resp);
      for (const v1::VariabilityCell& cell : resp.cells()) {
        for (const std::string& w : cell.warnings()) {
          err << "warning: " << cell.label() << ": " << w << "\n";
        }
      }
      for (const std::string& w : resp.warnings()) {
        err << "warning: " << w << "\n";
      }
      err << "method: " << resp.method() << "\n" << SavedOffsetsText(resp);
      break;
    case OutputFormat::kJson:
      out << VariabilityJson(resp);
      break;
  }
  return kExitOk;
}

int CmdExport(v1::Control::StubInterface* stub, const CliOptions& opt,
              std::ostream& out, std::ostream& err) {
  v1::ExportRequest req;
  req.set_sweep_id(opt.sweep_id);
  auto ctx = RpcContext(600);
  auto reader = stub->Export(ctx.get(), req);
  std::map<std::string, std::ofstream> files;
  std::map<std::string, int64_t> lines;
  v1::ExportChunk chunk;
  while (reader->Read(&chunk)) {
    auto it = files.find(chunk.table());
    if (it == files.end()) {
      const std::string path = opt.out_dir + "/" + chunk.table() + ".csv";
      it = files.emplace(chunk.table(), std::ofstream(path)).first;
      if (!it->second) {
        err << "error: --out: cannot write " << path << "\n";
        ctx->TryCancel();
        return kExitFailed;
      }
    }
    it->second << chunk.csv();
    for (char c : chunk.csv()) lines[chunk.table()] += (c == '\n');
  }
  grpc::Status st = reader->Finish();
  if (!st.ok()) return ReportRpcError(st, opt, err);
  for (auto& [table, f] : files) {
    f.close();
    out << opt.out_dir << "/" << table << ".csv: "
        << std::max<int64_t>(lines[table] - 1, 0) << " rows\n";
  }
  return kExitOk;
}

}  // namespace powersweep
