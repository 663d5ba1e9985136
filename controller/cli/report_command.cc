#include "controller/cli/report_command.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "controller/cli/report_csv.h"
#include "controller/cli/trace_csv.h"

extern char** environ;

namespace powersweep {
namespace {

// mkdir -p; the error names --out.
absl::Status MakeDirs(const std::string& dir) {
  if (dir.empty()) return absl::InvalidArgumentError("--out: a folder is required");
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    const std::string part = dir.substr(0, i);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--out: cannot create ", part, ": ", std::strerror(errno)));
    }
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--out: ", dir, " is not a folder"));
  }
  return absl::OkStatus();
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) {
    return absl::InvalidArgumentError(
        absl::StrCat("--out: cannot write ", path));
  }
  return absl::OkStatus();
}

// The class models fitted on the sweep, each with its predicted front and
// its nvpmodel default; a query that fails is a warning, not an error.
int GatherModels(v1::Control::StubInterface* stub, const CliOptions& opt,
                 std::ostream& err, std::vector<ReportModel>* out) {
  v1::ListModelsRequest req;
  req.mutable_selector()->set_sweep_id(opt.sweep_id);
  v1::ListModelsResponse resp;
  auto ctx = RpcContext(60);
  grpc::Status st = stub->ListModels(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  std::vector<v1::WorkloadModel> all(resp.models().begin(),
                                     resp.models().end());
  for (v1::WorkloadModel& model : LatestClassModels(all)) {
    ReportModel m;
    m.model = std::move(model);
    v1::ModelSelector selector;
    selector.set_model_id(m.model.model_id());
    v1::ParetoRequest pareto;
    *pareto.mutable_selector() = selector;
    auto pctx = RpcContext(120);
    st = stub->Pareto(pctx.get(), pareto, &m.pareto);
    m.has_pareto = st.ok();
    if (!st.ok()) {
      err << "warning: model " << m.model.model_id()
          << ": no predicted front: " << st.error_message() << "\n";
    }
    m.nvpmodel_default = NvpmodelDefaultPreset(m.model.device_class());
    if (!m.nvpmodel_default.empty()) {
      v1::PredictRequest predict;
      *predict.mutable_selector() = selector;
      predict.add_modes()->set_preset(m.nvpmodel_default);
      v1::PredictResponse predicted;
      auto qctx = RpcContext(60);
      st = stub->Predict(qctx.get(), predict, &predicted);
      if (st.ok() && predicted.predictions_size() == 1) {
        m.has_nvpmodel_default = true;
        m.nvpmodel_default_prediction = predicted.predictions(0);
      } else if (!st.ok()) {
        err << "warning: model " << m.model.model_id() << ": "
            << m.nvpmodel_default << " not predicted: " << st.error_message()
            << "\n";
      }
    }
    out->push_back(std::move(m));
  }
  return kExitOk;
}

// The sweep's telemetry and traces through Control.Export (the other
// tables it streams are skipped).
int GatherTelemetry(v1::Control::StubInterface* stub, const CliOptions& opt,
                    std::ostream& err, std::vector<TelemetryRow>* out,
                    std::vector<TraceCsvRow>* traces_out) {
  v1::ExportRequest req;
  req.set_sweep_id(opt.sweep_id);
  auto ctx = RpcContext(600);
  auto reader = stub->Export(ctx.get(), req);
  TelemetryCsvReader telemetry;
  TraceCsvReader traces;
  v1::ExportChunk chunk;
  while (reader->Read(&chunk)) {
    if (chunk.table() == "telemetry") telemetry.Feed(chunk.csv());
    if (chunk.table() == "traces") traces.Feed(chunk.csv());
  }
  grpc::Status st = reader->Finish();
  if (!st.ok()) return ReportRpcError(st, opt, err);
  if (absl::Status s = telemetry.Finish(); !s.ok()) {
    err << "error: " << s.message() << "\n";
    return kExitFailed;
  }
  if (absl::Status s = traces.Finish(); !s.ok()) {
    err << "error: " << s.message() << "\n";
    return kExitFailed;
  }
  *out = std::move(telemetry.rows());
  *traces_out = std::move(traces.rows());
  return kExitOk;
}

// Runs `argv` (no shell) and waits; its exit code, or -1 with `*problem`.
int Spawn(const std::vector<std::string>& argv, std::string* problem) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc =
      posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ);
  if (rc != 0) {
    *problem = std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      *problem = std::strerror(errno);
      return -1;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  *problem = absl::StrCat("killed by signal ", WTERMSIG(status));
  return -1;
}

}  // namespace

std::string DefaultReportScript() { return POWERSWEEP_REPORT_SCRIPT; }

absl::StatusOr<std::vector<std::string>> WriteFigureData(
    const std::string& dir, const std::vector<FigureTable>& figures,
    const std::vector<std::pair<std::string, std::string>>& meta) {
  std::vector<std::string> written;
  Table index;
  index.header = {"figure", "drawn", "rows", "note"};
  for (const FigureTable& f : figures) {
    const bool drawn = f.omitted.empty();
    index.rows.push_back({f.name, drawn ? "1" : "0",
                          std::to_string(f.table.rows.size()),
                          drawn ? f.note : f.omitted});
    for (const char* ext : {".csv", ".png", ".svg"}) {
      std::remove(absl::StrCat(dir, "/", f.name, ext).c_str());
    }
    if (!drawn) continue;
    const std::string path = absl::StrCat(dir, "/", f.name, ".csv");
    if (absl::Status s = WriteFile(path, RenderTable(f.table, OutputFormat::kCsv));
        !s.ok()) {
      return s;
    }
    written.push_back(path);
  }
  Table m;
  m.header = {"key", "value"};
  for (const auto& [k, v] : meta) m.rows.push_back({k, v});
  using NamedTable = std::pair<const char*, const Table*>;
  for (const auto& [name, table] :
       {NamedTable{"figures", &index}, NamedTable{"meta", &m}}) {
    const std::string path = absl::StrCat(dir, "/", name, ".csv");
    if (absl::Status s = WriteFile(path, RenderTable(*table, OutputFormat::kCsv));
        !s.ok()) {
      return s;
    }
    written.push_back(path);
  }
  return written;
}

int CmdReport(v1::Control::StubInterface* stub, const CliOptions& opt,
              const ReportOptions& report, std::ostream& out,
              std::ostream& err) {
  if (absl::Status s = MakeDirs(report.out_dir); !s.ok()) {
    err << "error: " << s.message() << "\n";
    return 2;
  }
  ReportInputs in;
  in.sweep_id = opt.sweep_id;
  v1::SweepStatus sweep;
  {
    v1::GetSweepRequest req;
    req.set_sweep_id(opt.sweep_id);
    auto ctx = RpcContext();
    grpc::Status st = stub->GetSweep(ctx.get(), req, &sweep);
    if (!st.ok()) return ReportRpcError(st, opt, err);
  }
  {
    v1::ListRunsRequest req;
    req.set_sweep_id(opt.sweep_id);
    v1::ListRunsResponse resp;
    auto ctx = RpcContext(60);
    grpc::Status st = stub->ListRuns(ctx.get(), req, &resp);
    if (!st.ok()) return ReportRpcError(st, opt, err);
    in.runs.assign(resp.runs().begin(), resp.runs().end());
  }
  absl::StatusOr<int64_t> timeline = ChooseTimelineRun(in.runs, report.run_id);
  if (!timeline.ok()) {
    err << "error: " << timeline.status().message() << "\n";
    return 2;
  }
  in.timeline_run_id = *timeline;
  {
    v1::ListDevicesResponse resp;
    auto ctx = RpcContext();
    grpc::Status st = stub->ListDevices(ctx.get(), {}, &resp);
    if (!st.ok()) return ReportRpcError(st, opt, err);
    for (const v1::DeviceStatus& d : resp.devices()) {
      in.platforms[d.identity().device_id()] = d.identity().platform();
    }
  }
  if (int rc = GatherModels(stub, opt, err, &in.models); rc != kExitOk) return rc;
  {
    // The outliers the variability figure marks: the analysis's own.
    v1::VariabilityRequest req;
    req.set_sweep_id(opt.sweep_id);
    v1::VariabilityResponse resp;
    auto ctx = RpcContext(60);
    grpc::Status st = stub->Variability(ctx.get(), req, &resp);
    if (!st.ok()) return ReportRpcError(st, opt, err);
    for (const v1::VariabilityCell& cell : resp.cells()) {
      for (const v1::VariabilityMetricReport& m : cell.metrics()) {
        for (const v1::VariabilityDeviceStats& d : m.devices()) {
          if (!d.outlier()) continue;
          in.outlier_runs[m.name()].insert(d.run_ids().begin(),
                                           d.run_ids().end());
        }
      }
    }
  }
  if (int rc = GatherTelemetry(stub, opt, err, &in.telemetry, &in.traces);
      rc != kExitOk) {
    return rc;
  }
  const std::vector<FigureTable> figures = AllFigures(in);
  std::vector<std::pair<std::string, std::string>> meta = {
      {"sweep_id", std::to_string(opt.sweep_id)},
      {"sweep_name", sweep.name()},
      {"runs", std::to_string(sweep.total())},
      {"done", std::to_string(sweep.done())},
      {"failed", std::to_string(sweep.failed())},
      {"cancelled", std::to_string(sweep.cancelled())},
      {"finished", sweep.finished() ? "yes" : "no"},
      {"models", std::to_string(in.models.size())},
      {"timeline_run_id", std::to_string(in.timeline_run_id)},
      {"controller", opt.controller},
      {"generated_utc", absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::Now(),
                                         absl::UTCTimeZone())}};
  auto written = WriteFigureData(report.out_dir, figures, meta);
  if (!written.ok()) {
    err << "error: " << written.status().message() << "\n";
    return kExitFailed;
  }
  const std::string script =
      report.script.empty() ? DefaultReportScript() : report.script;
  std::string problem;
  const int rc = Spawn({report.python, script, report.out_dir}, &problem);
  if (rc != 0) {
    err << "error: the plotting script " << script << " ";
    if (rc < 0) {
      err << "could not run under " << report.python << ": " << problem
          << " (install Debian's python3 and python3-matplotlib, or set "
             "--python)\n";
    } else {
      err << "failed (exit code " << rc << "; its message is above)\n";
    }
    err << "the figures' data is in " << report.out_dir << "/*.csv\n";
    return kExitFailed;
  }
  int drawn = 0;
  for (const FigureTable& f : figures) {
    if (!f.omitted.empty()) {
      out << "left out " << f.name << ": " << f.omitted << "\n";
      continue;
    }
    ++drawn;
    out << report.out_dir << "/" << f.name << ".{csv,png,svg}: "
        << f.table.rows.size() << " rows\n";
  }
  out << report.out_dir << "/index.html: sweep " << opt.sweep_id << ", "
      << drawn << " of " << figures.size() << " figures\n";
  return kExitOk;
}

}  // namespace powersweep
