// `powersweep report` end to end: a real controller and three Orin AGX twin
// agents run a sweep of seven power modes (every mode on every twin, LeNet-5
// and ResNet-50 training and a baseload, twice), `powersweep fit` fits its
// models, and `powersweep report` writes the figures. Every figure that applies has a non-empty
// CSV with the rows the sweep implies, a PNG with ink in it and an SVG;
// the native-vs-container figure is left out with its reason (twins run
// natively only). figure_checks.py then checks what each figure drew (its
// FIGURE.json sidecar) against its data: plain tick labels, narrow axes
// padded, legends outside the axes, every workload with each measured
// mode labelled, no bar hidden by the scale, and the variability figure
// marking the devices `powersweep variability` calls outliers. Headless Chromium (Debian's chromium) then opens
// index.html offline: a screenshot that is not blank, and in the DOM each
// drawn figure's section holds an inline <svg> with paths.
#include <sys/stat.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/subprocess.h"

namespace powersweep::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kChromium[] = "/usr/bin/chromium";
constexpr int kTwins = 3;
constexpr int kRepetitions = 2;
const std::vector<std::string> kWorkloads = {"lenet5/fashion-mnist",
                                             "resnet50/imagenet"};
const std::vector<std::string> kModes = {"MAXN",    "MODE_15W", "MODE_30W",
                                         "MODE_50W", "PM1_CPU",  "PM2_GPU",
                                         "PM3_MEM"};

// Runs argv to its end (at most `timeout_s`), logged in the fleet's folder.
Finished RunCommand(const LocalFleet& fleet,
                    const std::vector<std::string>& argv,
                    double timeout_s = 120) {
  static int n = 0;
  return RunToEnd(argv, fleet.dir() + "/cmd-" + std::to_string(++n) + ".log",
                  timeout_s);
}

Finished RunCli(const LocalFleet& fleet, std::vector<std::string> args) {
  args.insert(args.begin(),
              {POWERSWEEP_CLI_BIN, "--controller=" + fleet.address()});
  return RunCommand(fleet, args);
}

int64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

// Data rows of a CSV (lines after the header), split naively: the
// columns the test reads hold no commas.
std::vector<std::vector<std::string>> CsvRows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  bool header = true;
  for (absl::string_view line :
       absl::StrSplit(ReadFile(path), '\n', absl::SkipEmpty())) {
    if (header) {
      header = false;
      continue;
    }
    rows.push_back(absl::StrSplit(line, ','));
  }
  return rows;
}

// What a PNG's pixels hold, from its inflated image data (filtered rows):
// a blank page's rows filter to nearly all zero bytes.
struct PngInk {
  bool valid = false;
  int distinct_bytes = 0;
  double nonzero_fraction = 0;
};
PngInk InkOf(const std::string& path) {
  const std::string png = ReadFile(path);
  PngInk ink;
  if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    return ink;
  }
  std::string idat;
  for (size_t pos = 8; pos + 12 <= png.size();) {
    const auto* p = reinterpret_cast<const unsigned char*>(png.data() + pos);
    const size_t len = (size_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
    if (png.compare(pos + 4, 4, "IDAT") == 0) idat += png.substr(pos + 8, len);
    pos += 12 + len;
  }
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return ink;
  z.next_in = reinterpret_cast<Bytef*>(idat.data());
  z.avail_in = static_cast<uInt>(idat.size());
  std::vector<unsigned char> buf(1 << 16);
  bool seen[256] = {};
  int64_t total = 0, nonzero = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = buf.data();
    z.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&z, Z_NO_FLUSH);
    const size_t got = buf.size() - z.avail_out;
    for (size_t i = 0; i < got; ++i) {
      seen[buf[i]] = true;
      nonzero += buf[i] != 0;
    }
    total += static_cast<int64_t>(got);
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END || total == 0) return ink;
  ink.valid = true;
  for (bool s : seen) ink.distinct_bytes += s;
  ink.nonzero_fraction = static_cast<double>(nonzero) / total;
  return ink;
}

std::vector<std::string> ChromiumArgv(const std::string& profile) {
  return {kChromium, "--headless", "--no-sandbox", "--disable-gpu",
          "--disable-quic", "--no-first-run", "--disable-background-networking",
          "--disable-component-update", "--disable-sync",
          "--user-data-dir=" + profile};
}

TEST(ReportTwinTest, RendersEveryFigureThatAppliesAndChromiumShowsThem) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
        .count();
  };
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  for (int i = 0; i < kTwins; ++i) {
    fleet.StartAgent("orin-agx-twin-" + std::to_string(i),
                     {"--platform=twin", "--device_class=orin-agx",
                      "--instance=" + std::to_string(i),
                      "--twin_seed=" + std::to_string(3 + i),
                      "--twin_time_scale=0", "--log_level=warning"});
  }
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        int n = 0;
        for (const v1::DeviceStatus& d : fleet.ListDevices()) n += d.connected();
        return n == kTwins;
      },
      30))
      << fleet.Logs();
  v1::SweepSpec spec;
  spec.set_name("it-report");
  spec.add_device_classes("orin-agx");
  spec.set_placement(v1::PLACEMENT_EVERY_DEVICE);
  // LeNet (well under a millisecond a minibatch on a twin) beside
  // ResNet-50 on ImageNet (hundreds): bars that span orders of magnitude.
  for (const std::string& w : kWorkloads) spec.add_workloads(w);
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_tasks(v1::TASK_BASELOAD);
  spec.add_batch_sizes(64);
  spec.add_loader_workers(1);
  for (const std::string& m : kModes) spec.add_power_modes()->set_preset(m);
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.set_repetitions(kRepetitions);
  spec.set_minibatches(100);
  spec.set_duration_s(0.2);  // baseloads: twins idle this long in wall time
  spec.set_seed(5);
  spec.set_telemetry_hz(50);
  spec.set_timeout_s(60);
  std::string error;
  const int64_t sweep = fleet.Submit(spec, &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 120))
      << fleet.Logs();
  ASSERT_EQ(fleet.GetSweep(sweep).done(),
            static_cast<int>(kModes.size()) *
                (static_cast<int>(kWorkloads.size()) + 1) * kTwins *
                kRepetitions);
  const double t_sweep = elapsed();
  const std::string sweep_arg = "--sweep=" + std::to_string(sweep);
  Finished fit = RunCli(fleet, {"fit", sweep_arg});
  ASSERT_EQ(fit.exit_code, 0) << fit.output;

  const std::string out = fleet.dir() + "/report";
  const double t_fit = elapsed();
  Finished report = RunCli(fleet, {"report", sweep_arg, "--out=" + out});
  const double t_report = elapsed();
  std::printf("$ powersweep report %s --out %s\n%s\n", sweep_arg.c_str(),
              out.c_str(), report.output.c_str());
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_THAT(report.output,
              HasSubstr("left out distributions: The sweep has no done "
                        "container, vm or container_in_vm runs"));

  // Every figure that applies: a CSV, a PNG with ink, an SVG.
  const std::vector<std::string> drawn = {"pareto",   "minibatch_time",
                                          "energy_split", "timeline",
                                          "heldout",  "variability"};
  for (const std::string& f : drawn) {
    for (const char* ext : {".csv", ".svg"}) {
      EXPECT_GT(FileSize(out + "/" + f + ext), 200) << f << ext;
    }
    const PngInk ink = InkOf(out + "/" + f + ".png");
    EXPECT_TRUE(ink.valid) << f << ".png is not a PNG";
    EXPECT_GT(ink.distinct_bytes, 64) << f << ".png";
    EXPECT_GT(ink.nonzero_fraction, 0.01) << f << ".png";
  }
  EXPECT_EQ(FileSize(out + "/distributions.png"), -1);
  EXPECT_EQ(FileSize(out + "/distributions.csv"), -1);

  // The rows the sweep implies.
  const size_t cells = kModes.size() * kWorkloads.size();
  EXPECT_EQ(CsvRows(out + "/minibatch_time.csv").size(), cells);
  EXPECT_EQ(CsvRows(out + "/energy_split.csv").size(), cells);
  EXPECT_EQ(CsvRows(out + "/variability.csv").size(),
            cells * kTwins * kRepetitions);
  std::set<std::string> devices;
  for (const auto& row : CsvRows(out + "/variability.csv")) {
    devices.insert(row.at(1));
    EXPECT_EQ(row.at(5), "simulated");
  }
  EXPECT_EQ(devices.size(), static_cast<size_t>(kTwins));
  int measured = 0, front = 0;
  std::set<std::string> marks;
  for (const auto& row : CsvRows(out + "/pareto.csv")) {
    measured += row.at(1) == "measured";
    front += row.at(1) == "predicted_front";
    if (!row.at(3).empty()) marks.insert(row.at(3));
  }
  EXPECT_EQ(measured, static_cast<int>(cells));
  EXPECT_GT(front, 1);
  EXPECT_EQ(marks, (std::set<std::string>{"MAXN", "nvpmodel default MODE_30W"}));
  std::set<std::string> targets;
  for (const auto& row : CsvRows(out + "/heldout.csv")) targets.insert(row.at(2));
  EXPECT_EQ(targets, (std::set<std::string>{"energy", "time"}));
  const auto timeline = CsvRows(out + "/timeline.csv");
  EXPECT_GT(timeline.size(), 5u);
  std::set<std::string> timeline_runs;
  for (const auto& row : timeline) timeline_runs.insert(row.at(0));
  EXPECT_EQ(timeline_runs.size(), 1u);
  const std::string index = ReadFile(out + "/index.html");
  EXPECT_THAT(index, HasSubstr("Not drawn: The sweep has no done container"));
  // Offline: nothing to fetch (the SVG namespaces are names only).
  for (const char* fetch :
       {"src=\"http", "href=\"http", "<link", "<script", "url(http"}) {
    EXPECT_EQ(index.find(fetch), std::string::npos) << fetch;
  }

  // What the figures drew (FIGURE.json, read back from matplotlib) against
  // their data: plain ticks, padded narrow axes, legends outside the axes,
  // every workload with every measured mode labelled, no hidden bar, the
  // outliers of variability.csv marked (tests/infra/report/figure_checks.py).
  Finished checks = RunCommand(
      fleet, {"/usr/bin/python3",
              POWERSWEEP_SOURCE_DIR "/tests/infra/report/figure_checks.py",
              out});
  std::printf("$ figure_checks.py %s\n%s", out.c_str(),
              checks.output.c_str());
  EXPECT_EQ(checks.exit_code, 0) << checks.output;
  EXPECT_THAT(checks.output,
              HasSubstr("checked 6 figures: pareto minibatch_time "
                        "energy_split timeline heldout variability"));
  // The report's outlier flags are the analysis's: `powersweep variability`
  // names the same devices per metric.
  Finished variability =
      RunCli(fleet, {"variability", sweep_arg, "--format=csv"});
  ASSERT_EQ(variability.exit_code, 0) << variability.output;
  std::set<std::string> analysis_outliers, report_outliers;
  {
    std::vector<std::string> header;
    for (absl::string_view line :
         absl::StrSplit(variability.output, '\n', absl::SkipEmpty())) {
      std::vector<std::string> cols = absl::StrSplit(line, ',');
      if (header.empty()) {
        header = cols;
        continue;
      }
      auto col = [&](const std::string& name) -> std::string {
        for (size_t i = 0; i < header.size() && i < cols.size(); ++i) {
          if (header[i] == name) return cols[i];
        }
        return "";
      };
      if (col("kind") == "device" && col("outlier") == "true" &&
          (col("metric") == "minibatch_time" || col("metric") == "energy")) {
        analysis_outliers.insert(col("metric") + " " + col("device"));
      }
    }
    ASSERT_FALSE(header.empty()) << variability.output;
  }
  for (const auto& row : CsvRows(out + "/variability.csv")) {
    ASSERT_EQ(row.size(), 8u);
    if (row.at(6) == "1") report_outliers.insert("minibatch_time " + row.at(1));
    if (row.at(7) == "1") report_outliers.insert("energy " + row.at(1));
  }
  EXPECT_EQ(report_outliers, analysis_outliers);
  std::printf("outliers (metric device): %s\n",
              absl::StrJoin(report_outliers, ", ").c_str());

  // --run must name a run of the sweep.
  Finished bad =
      RunCli(fleet, {"report", sweep_arg, "--out=" + out, "--run=999999"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.output, HasSubstr("--run: run 999999 is not a run of sweep"));

  // Without the plotting interpreter: the reason, and where the data is.
  const std::string csv_only = fleet.dir() + "/report-without-python";
  Finished no_python = RunCli(fleet, {"report", sweep_arg, "--out=" + csv_only,
                                 "--python=/nonexistent/python3"});
  EXPECT_EQ(no_python.exit_code, 1);
  EXPECT_THAT(no_python.output,
              HasSubstr("could not run under /nonexistent/python3"));
  EXPECT_THAT(no_python.output, HasSubstr("python3-matplotlib"));
  EXPECT_THAT(no_python.output, HasSubstr("figures' data is in " + csv_only));
  EXPECT_EQ(ReadFile(csv_only + "/variability.csv"),
            ReadFile(out + "/variability.csv"));

  // Headless Chromium opens the page offline.
  const std::string url = "file://" + out + "/index.html";
  const std::string shot = fleet.dir() + "/screenshot.png";
  std::vector<std::string> argv = ChromiumArgv(MakeTempDir("report-chromium"));
  argv.insert(argv.end(),
              {"--screenshot=" + shot, "--window-size=1280,5200", url});
  Finished screenshot = RunCommand(fleet, argv, 60);
  ASSERT_EQ(screenshot.exit_code, 0) << screenshot.output;
  const PngInk ink = InkOf(shot);
  EXPECT_TRUE(ink.valid) << shot;
  EXPECT_GT(ink.distinct_bytes, 64);
  EXPECT_GT(ink.nonzero_fraction, 0.01);
  std::printf("screenshot %s: %lld bytes, %d distinct bytes, %.3f nonzero\n",
              shot.c_str(), static_cast<long long>(FileSize(shot)),
              ink.distinct_bytes, ink.nonzero_fraction);

  argv = ChromiumArgv(MakeTempDir("report-chromium"));
  argv.insert(argv.end(), {"--dump-dom", url});
  Finished dom = RunCommand(fleet, argv, 60);
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  for (const std::string& f : drawn) {
    const size_t start =
        dom.output.find("<section class=\"figure\" id=\"fig-" + f + "\"");
    ASSERT_NE(start, std::string::npos) << f << " missing from the DOM";
    const std::string section =
        dom.output.substr(start, dom.output.find("</section>", start) - start);
    EXPECT_THAT(section, HasSubstr("<svg")) << f;
    EXPECT_THAT(section, HasSubstr("<path")) << f;
  }
  EXPECT_THAT(dom.output,
              HasSubstr("<section class=\"omitted\" id=\"fig-distributions\""));
  std::printf(
      "wall time: sweep done at %.1f s, fitted at %.1f s, report took %.1f "
      "s, total %.1f s\n",
      t_sweep, t_fit, t_report - t_fit, elapsed());
}

}  // namespace
}  // namespace powersweep::testing
