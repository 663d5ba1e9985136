// `--format json` is valid JSON a script can read without string parsing:
// numbers are numbers, missing values are null, "mean ± sd" cells are two
// numeric fields, "done/total" counts are two, confidence intervals are
// two-number arrays. Each output is parsed back with protobuf's JSON parser.
#include "controller/cli/format.h"

#include <string>

#include "controller/cli/run_tables.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/controller/cli/done_run.h"

namespace powersweep {
namespace {

using ::google::protobuf::Struct;
using ::google::protobuf::Value;

// The rows of a rendered JSON array, each parsed as an object.
std::vector<Struct> ParseRows(const std::string& json) {
  Struct doc;
  auto st = google::protobuf::util::JsonStringToMessage(
      "{\"rows\": " + json + "}", &doc);
  EXPECT_TRUE(st.ok()) << st.message() << "\n" << json;
  std::vector<Struct> rows;
  for (const Value& v : doc.fields().at("rows").list_value().values()) {
    rows.push_back(v.struct_value());
  }
  return rows;
}

const Value& Field(const Struct& s, const std::string& name) {
  static const Value* const kMissing = new Value();
  auto it = s.fields().find(name);
  EXPECT_NE(it, s.fields().end()) << "no field " << name;
  return it == s.fields().end() ? *kMissing : it->second;
}

// A done run whose stall is a quarter of its minibatch time.
v1::RunStatus TimedRun(int64_t id, double mean_minibatch_s, double energy_j) {
  v1::RunStatus r = DoneRun(id, mean_minibatch_s, 10, energy_j);
  r.mutable_summary()->set_mean_stall_s(mean_minibatch_s / 4);
  return r;
}

TEST(JsonFormatTest, SummaryHasNumbersSdFieldsAndCounts) {
  v1::RunStatus pending = TimedRun(3, 0, 0);
  pending.set_state(v1::RUN_STATE_PENDING);
  pending.mutable_summary()->Clear();
  const std::string json = RenderTable(
      SummaryTable({TimedRun(1, 0.010, 40), TimedRun(2, 0.012, 60), pending}),
      OutputFormat::kJson);
  EXPECT_THAT(json, ::testing::Not(::testing::HasSubstr("±")));
  const std::vector<Struct> rows = ParseRows(json);
  ASSERT_EQ(rows.size(), 1u);
  const Struct& r = rows[0];
  EXPECT_EQ(Field(r, "done").number_value(), 2);
  EXPECT_EQ(Field(r, "done_total").number_value(), 3);
  EXPECT_NEAR(Field(r, "ms_per_mb").number_value(), 11.0, 1e-9);
  EXPECT_NEAR(Field(r, "ms_per_mb_sd").number_value(), 1.41, 1e-9);
  EXPECT_NEAR(Field(r, "energy_j").number_value(), 50.0, 1e-9);
  EXPECT_EQ(Field(r, "batch").kind_case(), Value::kNumberValue);
  // No baseload: the incremental energy is missing, so null, not "-".
  EXPECT_EQ(Field(r, "incr_energy_j").kind_case(), Value::kNullValue);
  EXPECT_EQ(Field(r, "incr_energy_j_sd").kind_case(), Value::kNullValue);
  EXPECT_EQ(Field(r, "energy_source").string_value(), "simulated");
}

TEST(JsonFormatTest, ASingleRunHasANullSdAndTheSameKeys) {
  v1::RunStatus other = TimedRun(4, 0.02, 30);
  other.mutable_spec()->mutable_workload()->set_model("resnet18");
  const std::vector<Struct> mixed = ParseRows(RenderTable(
      SummaryTable({TimedRun(1, 0.010, 40), TimedRun(2, 0.012, 60), other}),
      OutputFormat::kJson));
  ASSERT_EQ(mixed.size(), 2u);
  EXPECT_EQ(mixed[1].fields().size(), mixed[0].fields().size());
  EXPECT_NEAR(Field(mixed[1], "ms_per_mb").number_value(), 20.0, 1e-9);
  EXPECT_EQ(Field(mixed[1], "ms_per_mb_sd").kind_case(), Value::kNullValue);
}

TEST(JsonFormatTest, IntervalsAreArraysAndSignedNumbersAreNumbers) {
  Table t;
  t.header = {"metric", "diff %", "95% CI diff %", "p", "note"};
  t.numeric = {false, true, false, true, false};
  t.rows = {{"energy", "+1.25", "[-0.50, +3.00]", "1.0e-05", "[a, b]"},
            {"time", "-", "-", "-", "-"}};
  const std::vector<Struct> rows = ParseRows(RenderTable(t,
                                                         OutputFormat::kJson));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(Field(rows[0], "diff %").number_value(), 1.25);
  const auto& ci = Field(rows[0], "95% CI diff %").list_value();
  ASSERT_EQ(ci.values_size(), 2);
  EXPECT_EQ(ci.values(0).number_value(), -0.5);
  EXPECT_EQ(ci.values(1).number_value(), 3.0);
  EXPECT_EQ(Field(rows[0], "p").number_value(), 1e-5);
  EXPECT_EQ(Field(rows[0], "note").string_value(), "[a, b]");
  for (const char* name : {"diff %", "95% CI diff %", "p", "note"}) {
    EXPECT_EQ(Field(rows[1], name).kind_case(), Value::kNullValue) << name;
  }
}

TEST(JsonFormatTest, PercentColumnsAreNumbersUnderAPctKey) {
  // `powersweep models --format json` once gave "time_cv_mape": "10.71%".
  Table t;
  t.header = {"time_cv_mape", "share_pct", "label"};
  t.numeric = {true, true, false};
  t.rows = {{"10.71%", "+3.5%", "12%"}, {"-", "-0.25%", "x"}};
  const std::vector<Struct> rows = ParseRows(RenderTable(t,
                                                         OutputFormat::kJson));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(Field(rows[0], "time_cv_mape_pct").number_value(), 10.71);
  EXPECT_EQ(Field(rows[0], "share_pct").number_value(), 3.5);
  EXPECT_EQ(Field(rows[0], "label").string_value(), "12%");
  EXPECT_EQ(Field(rows[1], "time_cv_mape_pct").kind_case(),
            Value::kNullValue);
  EXPECT_EQ(Field(rows[1], "share_pct").number_value(), -0.25);
  EXPECT_EQ(rows[0].fields().count("time_cv_mape"), 0u);
}

TEST(JsonFormatTest, TextThatIsNotAJsonNumberStaysAString) {
  Table t;
  t.header = {"cpu_mhz", "id"};
  t.numeric = {true, true};
  t.rows = {{"max", ".5"}, {"1497.6", "nan"}};
  const std::vector<Struct> rows = ParseRows(RenderTable(t,
                                                         OutputFormat::kJson));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(Field(rows[0], "cpu_mhz").string_value(), "max");
  EXPECT_EQ(Field(rows[0], "id").string_value(), ".5");
  EXPECT_EQ(Field(rows[1], "cpu_mhz").number_value(), 1497.6);
  EXPECT_EQ(Field(rows[1], "id").string_value(), "nan");
}

TEST(JsonFormatTest, NoRowsIsAnEmptyArray) {
  Table t;
  t.header = {"a"};
  EXPECT_EQ(RenderTable(t, OutputFormat::kJson), "[]\n");
  EXPECT_TRUE(ParseRows("[]").empty());
}

}  // namespace
}  // namespace powersweep
