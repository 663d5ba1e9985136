// Spreadsheet formulas never escape into a CSV the product writes: a real
// controller, two Orin AGX twin agents whose device ids start with `=` and
// `@`, a raw agent (this test, over gRPC) registered as "+fake" with the
// hostname "=cmd|' /C calc'!A0" that fails its run with the reason
// "=2+3", a sweep named "=SUM(1,2)", and the CLI. `runs`, `summary`,
// `devices` and `status` with --format=csv, `export` (runs.csv) and
// `report` (variability.csv, meta.csv) all show those texts with a leading
// `'`, the cell a spreadsheet displays as text, while numbers stay
// numbers; and no cell of any of those files starts a formula.
#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "powersweep/v1/agent_gateway.grpc.pb.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/subprocess.h"

namespace powersweep::testing {
namespace {

using Stream =
    grpc::ClientReaderWriter<v1::AgentMessage, v1::ControllerMessage>;

const std::vector<std::string> kTwins = {"=orin-a", "@orin-b"};
constexpr char kFake[] = "+fake";
constexpr char kFakeHost[] = "=cmd|' /C calc'!A0";
constexpr char kReason[] = "=2+3";
constexpr char kSweepName[] = "=SUM(1,2)";

Finished RunCli(const LocalFleet& fleet, std::vector<std::string> args) {
  static int n = 0;
  args.insert(args.begin(),
              {POWERSWEEP_CLI_BIN, "--controller=" + fleet.address()});
  return RunToEnd(args, fleet.dir() + "/cli-" + std::to_string(++n) + ".log",
                  120);
}

// RFC 4180 records of `text` (quoted cells may hold commas, quotes and
// line breaks): what a spreadsheet reads, cell for cell.
std::vector<std::vector<std::string>> Records(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      row.push_back(cell);
      rows.push_back(row);
      row.clear();
      cell.clear();
      any = false;
      continue;
    } else {
      cell += c;
    }
    any = true;
  }
  if (any) {
    row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

using Row = std::map<std::string, std::string>;

std::vector<Row> Rows(const std::string& text) {
  const auto records = Records(text);
  std::vector<Row> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    Row& row = rows.emplace_back();
    for (size_t c = 0; c < records[0].size() && c < records[r].size(); ++c) {
      row[records[0][c]] = records[r][c];
    }
  }
  return rows;
}

// True for [+-]digits[.digits][e[+-]digits]: a cell a spreadsheet reads as
// a number.
bool IsNumber(const std::string& s) {
  size_t i = 0, digits = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  while (i < s.size() && isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp = 0;
    while (i < s.size() && isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == s.size();
}

// Every cell a spreadsheet would start as a formula: text (not a number,
// not the lone "-" of a missing value) whose first character is one of
// = + - @ tab CR.
std::vector<std::string> LiveFormulas(const std::string& text) {
  std::vector<std::string> live;
  for (const auto& row : Records(text)) {
    for (const std::string& cell : row) {
      if (cell.empty() || cell == "-" || IsNumber(cell)) continue;
      if (std::string("=+-@\t\r").find(cell[0]) != std::string::npos) {
        live.push_back(cell);
      }
    }
  }
  return live;
}

// The CSV a CLI command prints (stdout and stderr are mixed: the table
// starts at its header line, which starts with `header`).
std::string CliCsv(const LocalFleet& fleet, std::vector<std::string> args,
                   const std::string& header) {
  args.push_back("--format=csv");
  Finished f = RunCli(fleet, args);
  EXPECT_EQ(f.exit_code, 0) << f.output;
  const size_t start = f.output.find(header);
  EXPECT_NE(start, std::string::npos) << f.output;
  return start == std::string::npos ? "" : f.output.substr(start);
}

// Plays an agent on its own stream: registers as kFake with kFakeHost,
// accepts the one run it is assigned and fails it with kReason.
class FailingAgent {
 public:
  explicit FailingAgent(const std::string& address)
      : gateway_(v1::AgentGateway::NewStub(
            grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))),
        stream_(gateway_->Session(&ctx_)) {}
  ~FailingAgent() {
    ctx_.TryCancel();
    if (thread_.joinable()) thread_.join();
  }

  bool Register() {
    v1::AgentMessage m;
    v1::Register* r = m.mutable_register_();
    r->mutable_identity()->set_device_id(kFake);
    r->mutable_identity()->set_device_class("orin-agx");
    r->mutable_identity()->set_platform("twin");
    r->mutable_identity()->set_hostname(kFakeHost);
    r->mutable_capabilities()->set_cpu_cores(4);
    r->mutable_capabilities()->add_runtimes(v1::RUNTIME_NATIVE);
    r->mutable_capabilities()->add_models("lenet5");
    r->mutable_capabilities()->add_datasets("fashion-mnist");
    r->mutable_health()->set_healthy(true);
    v1::ControllerMessage answer;
    if (!stream_->Write(m) || !stream_->Read(&answer)) return false;
    if (!answer.has_registered()) return false;
    thread_ = std::thread([this] { Serve(); });
    return true;
  }

 private:
  void Serve() {
    v1::ControllerMessage in;
    while (stream_->Read(&in)) {
      if (!in.has_assign()) continue;
      const v1::RunSpec& spec = in.assign().spec();
      v1::AgentMessage reply;
      reply.mutable_assign_reply()->set_run_id(spec.run_id());
      reply.mutable_assign_reply()->set_attempt(spec.attempt());
      reply.mutable_assign_reply()->set_accepted(true);
      v1::AgentMessage started;
      started.mutable_run_started()->set_run_id(spec.run_id());
      v1::AgentMessage finished;
      v1::RunFinished* f = finished.mutable_run_finished();
      f->mutable_result()->set_run_id(spec.run_id());
      f->mutable_result()->set_ok(false);
      f->mutable_result()->set_reason(kReason);
      f->set_batches(0);
      f->set_attempt(spec.attempt());
      if (!stream_->Write(reply) || !stream_->Write(started) ||
          !stream_->Write(finished)) {
        return;
      }
    }
  }

  std::unique_ptr<v1::AgentGateway::Stub> gateway_;
  grpc::ClientContext ctx_;
  std::unique_ptr<Stream> stream_;
  std::thread thread_;
};

TEST(CsvFormulaTwinTest, NoCsvTheProductWritesCarriesALiveFormula) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  for (size_t i = 0; i < kTwins.size(); ++i) {
    fleet.StartAgent(kTwins[i], {"--platform=twin", "--device_class=orin-agx",
                                 "--instance=" + std::to_string(i),
                                 "--twin_time_scale=0", "--log_level=warning"});
  }
  FailingAgent fake(fleet.address());
  ASSERT_TRUE(fake.Register()) << fleet.Logs();
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        int n = 0;
        for (const v1::DeviceStatus& d : fleet.ListDevices()) n += d.connected();
        return n == 3;
      },
      30))
      << fleet.Logs();

  // Two runs per twin, and one run on the fake agent, which fails it.
  v1::SweepSpec twins = OrinTwinSweep(kSweepName, v1::TASK_INFER, 2, 20);
  twins.add_devices(kTwins[0]);
  twins.add_devices(kTwins[1]);
  twins.set_placement(v1::PLACEMENT_EVERY_DEVICE);
  v1::SweepSpec failing = OrinTwinSweep("failing", v1::TASK_INFER, 1, 20);
  failing.add_devices(kFake);
  std::string error;
  const int64_t twin_sweep = fleet.Submit(twins, &error);
  ASSERT_GT(twin_sweep, 0) << error;
  const int64_t failing_sweep = fleet.Submit(failing, &error);
  ASSERT_GT(failing_sweep, 0) << error;
  for (int64_t id : {twin_sweep, failing_sweep}) {
    ASSERT_TRUE(LocalFleet::WaitFor(
        [&] { return fleet.GetSweep(id).finished(); }, 120))
        << fleet.Logs();
  }
  ASSERT_EQ(fleet.GetSweep(twin_sweep).done(), 4) << fleet.Logs();
  ASSERT_EQ(fleet.GetSweep(failing_sweep).failed(), 1) << fleet.Logs();
  const std::string twin_arg = "--sweep=" + std::to_string(twin_sweep);
  const std::string failing_arg = "--sweep=" + std::to_string(failing_sweep);

  std::map<std::string, std::string> files;  // what each check read

  // runs: the failed run's device and reason; the twins' ids.
  files["runs (failing)"] = CliCsv(fleet, {"runs", failing_arg}, "run,");
  const auto failed_rows = Rows(files["runs (failing)"]);
  ASSERT_EQ(failed_rows.size(), 1u) << files["runs (failing)"];
  EXPECT_EQ(failed_rows[0].at("device"), "'+fake");
  EXPECT_EQ(failed_rows[0].at("reason"), "'=2+3");
  EXPECT_EQ(failed_rows[0].at("state"), "failed");
  files["runs (twins)"] = CliCsv(fleet, {"runs", twin_arg}, "run,");
  std::map<std::string, int> runs_on;
  for (const Row& row : Rows(files["runs (twins)"])) {
    ++runs_on[row.at("device")];
    EXPECT_TRUE(IsNumber(row.at("ms_per_mb"))) << row.at("ms_per_mb");
  }
  EXPECT_EQ(runs_on["'=orin-a"], 2) << files["runs (twins)"];
  EXPECT_EQ(runs_on["'@orin-b"], 2) << files["runs (twins)"];

  // summary of both sweeps.
  files["summary (failing)"] =
      CliCsv(fleet, {"summary", failing_arg}, "class,");
  const auto summary = Rows(files["summary (failing)"]);
  ASSERT_EQ(summary.size(), 1u) << files["summary (failing)"];
  EXPECT_EQ(summary[0].at("failed"), "1");
  EXPECT_EQ(summary[0].at("ms_per_mb"), "-");
  files["summary (twins)"] = CliCsv(fleet, {"summary", twin_arg}, "class,");

  // devices: ids and the fake agent's hostname.
  files["devices"] = CliCsv(fleet, {"devices"}, "device,");
  std::map<std::string, std::string> host_of;
  for (const Row& row : Rows(files["devices"])) {
    host_of[row.at("device")] = row.at("host");
  }
  EXPECT_EQ(host_of.count("'=orin-a"), 1u) << files["devices"];
  EXPECT_EQ(host_of.count("'@orin-b"), 1u) << files["devices"];
  EXPECT_EQ(host_of["'+fake"], "'=cmd|' /C calc'!A0") << files["devices"];

  // status: the sweep's name.
  files["status"] = CliCsv(fleet, {"status"}, "sweep,");
  bool named = false;
  for (const Row& row : Rows(files["status"])) {
    named |= row.at("name") == "'=SUM(1,2)";
  }
  EXPECT_TRUE(named) << files["status"];

  // export: runs.csv of the failing sweep.
  const std::string out = fleet.dir() + "/export";
  Finished exported = RunCli(fleet, {"export", failing_arg, "--out=" + out});
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  files["export runs.csv"] = ReadFile(out + "/runs.csv");
  const auto export_rows = Rows(files["export runs.csv"]);
  ASSERT_EQ(export_rows.size(), 1u) << files["export runs.csv"];
  EXPECT_EQ(export_rows[0].at("device_id"), "'+fake");
  EXPECT_EQ(export_rows[0].at("reason"), "'=2+3");

  // report: variability.csv (a cell on both twins) and meta.csv. The
  // figures' data is written before the plotting script runs, so a
  // missing interpreter only ends the command after the CSVs exist.
  const std::string report = fleet.dir() + "/report";
  RunCli(fleet, {"report", twin_arg, "--out=" + report,
                 "--python=/nonexistent/python3"});
  files["report variability.csv"] = ReadFile(report + "/variability.csv");
  std::map<std::string, int> boxes;
  for (const Row& row : Rows(files["report variability.csv"])) {
    ++boxes[row.at("device_id")];
  }
  EXPECT_EQ(boxes["'=orin-a"], 2) << files["report variability.csv"];
  EXPECT_EQ(boxes["'@orin-b"], 2) << files["report variability.csv"];
  files["report meta.csv"] = ReadFile(report + "/meta.csv");
  std::map<std::string, std::string> meta;
  for (const Row& row : Rows(files["report meta.csv"])) {
    meta[row.at("key")] = row.at("value");
  }
  EXPECT_EQ(meta["sweep_name"], "'=SUM(1,2)") << files["report meta.csv"];
  files["report figures.csv"] = ReadFile(report + "/figures.csv");

  for (const auto& [name, text] : files) {
    EXPECT_FALSE(text.empty()) << name;
    EXPECT_THAT(LiveFormulas(text), ::testing::IsEmpty())
        << name << ":\n" << text;
  }
  std::printf("csv formulas: %zu CSV outputs checked, none holds a live "
              "formula\n",
              files.size());
}

}  // namespace
}  // namespace powersweep::testing
