// Reading the Export call's telemetry CSV for `powersweep report`, and the
// files the report writes for its figures.
#include "controller/cli/report_csv.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "controller/cli/report_command.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::vector<std::string>> Split(
    const std::vector<std::string>& chunks) {
  std::vector<std::vector<std::string>> out;
  CsvRecordSplitter s([&](const std::vector<std::string>& r) { out.push_back(r); });
  for (const std::string& c : chunks) s.Feed(c);
  s.Finish();
  return out;
}

TEST(CsvRecordSplitterTest, QuotedCommasQuotesAndLineBreaks) {
  auto rows = Split({"a,\"b,c\",\"say \"\"hi\"\"\"\r\n", "\n",
                     "1,,\"two\nlines\"\n", "last,row"});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_THAT(rows[0], ElementsAre("a", "b,c", "say \"hi\""));
  EXPECT_THAT(rows[1], ElementsAre("1", "", "two\nlines"));
  EXPECT_THAT(rows[2], ElementsAre("last", "row"));
}

TEST(CsvRecordSplitterTest, ChunksMayCutAFieldAnywhere) {
  auto rows = Split({"x,\"{\"\"a\"\"", ":1,\"\"b\"\":2}\",", "3\n"});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_THAT(rows[0], ElementsAre("x", "{\"a\":1,\"b\":2}", "3"));
}

TEST(TelemetryCsvReaderTest, ReadsTheColumnsByName) {
  TelemetryCsvReader r;
  r.Feed("run_id,attempt,seq,t_s,cpu_util,core_util,gpu_util,power_mw,"
         "power_provenance,rails_json\n");
  r.Feed("7,2,1,0.25,0.5,\"[0.5,0.5]\",0.75,5100,simulated,"
         "\"{\"\"rails\"\":[]}\"\n8,1,1,0,,,,,measured,\n");
  ASSERT_TRUE(r.Finish().ok());
  ASSERT_EQ(r.rows().size(), 2u);
  EXPECT_EQ(r.rows()[0].run_id, 7);
  EXPECT_EQ(r.rows()[0].attempt, 2);
  EXPECT_DOUBLE_EQ(r.rows()[0].t_s, 0.25);
  EXPECT_DOUBLE_EQ(r.rows()[0].cpu_util, 0.5);
  EXPECT_DOUBLE_EQ(r.rows()[0].gpu_util, 0.75);
  EXPECT_DOUBLE_EQ(r.rows()[0].power_mw, 5100);
  EXPECT_EQ(r.rows()[0].provenance, "simulated");
  EXPECT_DOUBLE_EQ(r.rows()[1].power_mw, 0);  // empty cell
}

TEST(TelemetryCsvReaderTest, AMissingColumnIsNamed) {
  TelemetryCsvReader r;
  r.Feed("run_id,attempt,t_s,cpu_util,gpu_util,power_provenance\n1,1,0,0,0,x\n");
  absl::Status s = r.Finish();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("no column 'power_mw'"));
}

std::string Read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

TEST(WriteFigureDataTest, DrawnFiguresGetACsvAndLeftOutOnesLoseTheirOldFiles) {
  char tmpl[] = "/tmp/report_csv_test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::ofstream(dir + "/timeline.png") << "stale";  // from an earlier report
  FigureTable drawn;
  drawn.name = "pareto";
  drawn.table.header = {"panel", "time"};
  drawn.table.rows = {{"a, b", "1"}};
  drawn.note = "a note";
  FigureTable omitted;
  omitted.name = "timeline";
  omitted.omitted = "No run.";
  auto written = WriteFigureData(dir, {drawn, omitted},
                                 {{"sweep_id", "4"}, {"sweep_name", "x"}});
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_THAT(*written, ElementsAre(dir + "/pareto.csv", dir + "/figures.csv",
                                    dir + "/meta.csv"));
  EXPECT_EQ(Read(dir + "/pareto.csv"), "panel,time\n\"a, b\",1\n");
  EXPECT_EQ(Read(dir + "/figures.csv"),
            "figure,drawn,rows,note\npareto,1,1,a note\ntimeline,0,0,No run.\n");
  EXPECT_EQ(Read(dir + "/meta.csv"), "key,value\nsweep_id,4\nsweep_name,x\n");
  EXPECT_FALSE(Exists(dir + "/timeline.png"));
  EXPECT_FALSE(Exists(dir + "/timeline.csv"));
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace powersweep
