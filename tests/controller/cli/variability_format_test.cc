// `powersweep variability` output for a report computed by the real
// analysis (four boards, one 15% slower: instance_sweep.h): the JSON parses
// back with numbers as numbers and null for missing figures, the CSV has
// one row per cell x metric x device plus an across row, the text table
// shows the outlier.
#include "controller/cli/variability_format.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "controller/analysis/variability.h"
#include "controller/analysis/variability_proto.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "storage/memory_store.h"
#include "tests/controller/analysis/instance_sweep.h"

namespace powersweep {
namespace {

using ::google::protobuf::ListValue;
using ::google::protobuf::Struct;
using ::google::protobuf::Value;
using ::testing::HasSubstr;

v1::VariabilityResponse InstanceResponse() {
  MemoryStore store;
  const int64_t sweep = testing::StoreInstanceSweep(&store);
  EXPECT_GT(sweep, 0);
  absl::StatusOr<VariabilityReport> report = SweepVariability(&store, sweep);
  EXPECT_TRUE(report.ok()) << report.status();
  return ToVariabilityResponse(sweep, report.ok() ? *report
                                                  : VariabilityReport());
}

const Value& Field(const Struct& s, const std::string& name) {
  static const Value* const kMissing = new Value();
  auto it = s.fields().find(name);
  EXPECT_NE(it, s.fields().end()) << "no field " << name;
  return it == s.fields().end() ? *kMissing : it->second;
}

const ListValue& List(const Struct& s, const std::string& name) {
  return Field(s, name).list_value();
}

Struct Parse(const std::string& json) {
  Struct parsed;
  auto st = google::protobuf::util::JsonStringToMessage(json, &parsed);
  EXPECT_TRUE(st.ok()) << st.message() << "\n" << json;
  return parsed;
}

TEST(VariabilityJsonTest, ParsesBackWithNumbersAndNulls) {
  const Struct doc = Parse(VariabilityJson(InstanceResponse()));
  EXPECT_EQ(Field(doc, "sweep_id").kind_case(), Value::kNumberValue);
  EXPECT_THAT(Field(doc, "method").string_value(), HasSubstr("ANOVA"));
  const ListValue& cells = List(doc, "cells");
  ASSERT_EQ(cells.values_size(), 2);
  const Struct& cell = cells.values(0).struct_value();
  EXPECT_THAT(Field(cell, "label").string_value(), HasSubstr("MAXN"));
  const Struct& mb = List(cell, "metrics").values(0).struct_value();
  EXPECT_EQ(Field(mb, "name").string_value(), "minibatch_time");
  EXPECT_EQ(Field(mb, "unit").string_value(), "ms");
  const ListValue& devices = List(mb, "devices");
  ASSERT_EQ(devices.values_size(), 4);
  const Struct& first = devices.values(0).struct_value();
  EXPECT_EQ(Field(first, "device").string_value(), "xavier-0");
  EXPECT_EQ(Field(first, "n").number_value(), 3);
  EXPECT_NEAR(Field(first, "mean").number_value(), 100, 1e-9);
  EXPECT_EQ(Field(first, "ci_low").kind_case(), Value::kNumberValue);
  EXPECT_NEAR(Field(first, "start_temp_c").number_value(), 40, 1e-9);
  EXPECT_FALSE(Field(first, "outlier").bool_value());
  const Struct& slow = devices.values(3).struct_value();
  EXPECT_EQ(Field(slow, "device").string_value(), "xavier-3");
  EXPECT_TRUE(Field(slow, "outlier").bool_value());
  EXPECT_NEAR(Field(slow, "deviation_pct").number_value(), 15, 1e-9);
  const Struct& across = Field(mb, "across").struct_value();
  EXPECT_NEAR(Field(across, "sd_within").number_value(), 1, 1e-9);
  EXPECT_NEAR(Field(across, "sd_between").number_value(),
              std::sqrt(169.75 / 3), 1e-9);
  EXPECT_EQ(Field(across, "df_within").number_value(), 8);
  EXPECT_EQ(Field(across, "p_value").kind_case(), Value::kNumberValue);
  ASSERT_EQ(List(across, "outliers").values_size(), 1);
  EXPECT_EQ(List(across, "outliers").values(0).string_value(), "xavier-3");

  // The baseload cell: one run per device, so no ANOVA: nulls.
  const Struct& idle = cells.values(1).struct_value();
  const Struct& power = List(idle, "metrics").values(1).struct_value();
  EXPECT_EQ(Field(power, "name").string_value(), "mean_power");
  // Baseload runs carry no conditions: no start temperature, null.
  EXPECT_EQ(Field(List(power, "devices").values(0).struct_value(),
                  "start_temp_c")
                .kind_case(),
            Value::kNullValue);
  const Struct& idle_across = Field(power, "across").struct_value();
  EXPECT_EQ(Field(idle_across, "f").kind_case(), Value::kNullValue);
  EXPECT_EQ(Field(idle_across, "icc").kind_case(), Value::kNullValue);
  EXPECT_EQ(Field(idle_across, "max_min").kind_case(), Value::kNumberValue);
  EXPECT_EQ(Field(power.fields().at("devices").list_value().values(0)
                      .struct_value(),
                  "sd")
                .kind_case(),
            Value::kNullValue);
  EXPECT_GT(List(idle, "warnings").values_size(), 0);
}

TEST(VariabilityJsonTest, InfiniteFIsNullAndTextIsEscaped) {
  v1::VariabilityResponse r;
  r.set_sweep_id(3);
  r.add_warnings("quote \" and\nnewline");
  v1::VariabilityCell* cell = r.add_cells();
  cell->set_label("a \"cell\"");
  v1::VariabilityMetricReport* m = cell->add_metrics();
  m->set_name("minibatch_time");
  m->mutable_across()->set_has_anova(true);
  m->mutable_across()->set_has_f_test(true);
  m->mutable_across()->set_f(std::numeric_limits<double>::infinity());
  m->mutable_across()->set_p_value(0);
  const Struct doc = Parse(VariabilityJson(r));
  EXPECT_EQ(List(doc, "warnings").values(0).string_value(),
            "quote \" and\nnewline");
  const Struct& c = List(doc, "cells").values(0).struct_value();
  EXPECT_EQ(Field(c, "label").string_value(), "a \"cell\"");
  const Struct& across =
      Field(List(c, "metrics").values(0).struct_value(), "across")
          .struct_value();
  EXPECT_EQ(Field(across, "f").kind_case(), Value::kNullValue);
  EXPECT_EQ(Field(across, "p_value").number_value(), 0);
}

// Zero within-device spread (twins): no F test to show, in any format,
// and the note that says why is a warning of the cell.
TEST(VariabilityTextTest, NoFTestWithoutWithinDeviceSpread) {
  v1::VariabilityResponse r;
  r.set_sweep_id(3);
  v1::VariabilityCell* cell = r.add_cells();
  cell->set_label("twins");
  cell->add_warnings(
      "no variation within any device (deterministic runs, e.g. twins): the "
      "F test is meaningless, so no p-value");
  v1::VariabilityMetricReport* m = cell->add_metrics();
  m->set_name("energy");
  v1::VariabilityAcrossDevices* a = m->mutable_across();
  a->set_devices(3);
  a->set_runs(9);
  a->set_has_anova(true);
  a->set_f(std::numeric_limits<double>::infinity());
  a->set_p_value(0);
  const std::string text = VariabilityText(r);
  EXPECT_THAT(text, HasSubstr("F-test p -"));
  EXPECT_THAT(text, HasSubstr("the F test is meaningless"));
  const Struct doc = Parse(VariabilityJson(r));
  const Struct& across =
      Field(List(List(doc, "cells").values(0).struct_value(), "metrics")
                .values(0)
                .struct_value(),
            "across")
          .struct_value();
  EXPECT_EQ(Field(across, "p_value").kind_case(), Value::kNullValue);
  EXPECT_EQ(Field(across, "f").kind_case(), Value::kNullValue);
}

TEST(SavedOffsetsTest, OneLinePerDeviceAndInTheJson) {
  v1::VariabilityResponse r;
  r.set_sweep_id(4);
  EXPECT_EQ(SavedOffsetsText(r), "");
  for (const char* metric : {"energy", "time"}) {
    v1::DeviceOffset* o = r.add_saved_offsets();
    o->set_device_id("xavier-3");
    o->set_device_class("xavier-agx");
    o->set_metric(metric);
    o->set_factor(std::string(metric) == "time" ? 1.1084 : 1.0991);
    o->set_cells(2);
    o->set_runs(6);
  }
  EXPECT_EQ(SavedOffsetsText(r),
            "saved calibration offsets (sweep 4; factor = device / class "
            "mean):\n  xavier-3  energy x1.099 (2 cells, 6 runs)  time "
            "x1.108 (2 cells, 6 runs)\n");
  const Struct doc = Parse(VariabilityJson(r));
  const ListValue& saved = List(doc, "saved_offsets");
  ASSERT_EQ(saved.values_size(), 2);
  EXPECT_EQ(Field(saved.values(1).struct_value(), "metric").string_value(),
            "time");
  EXPECT_NEAR(Field(saved.values(1).struct_value(), "factor").number_value(),
              1.1084, 1e-12);
}

TEST(VariabilityCsvTest, OneRowPerCellMetricDeviceAndAnAcrossRow) {
  const v1::VariabilityResponse r = InstanceResponse();
  const std::vector<std::string> lines =
      absl::StrSplit(VariabilityCsv(r), '\n', absl::SkipEmpty());
  size_t expected = 1;  // header
  for (const v1::VariabilityCell& c : r.cells()) {
    for (const v1::VariabilityMetricReport& m : c.metrics()) {
      expected += m.devices_size() + 1;
    }
  }
  ASSERT_EQ(lines.size(), expected);
  const std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  ASSERT_EQ(header.size(), 23u);
  EXPECT_EQ(header[3], "kind");
  EXPECT_EQ(header[22], "outliers");
  // The cell label has no comma: split the first metric's rows directly.
  const std::vector<std::string> slow = absl::StrSplit(lines[4], ',');
  ASSERT_EQ(slow.size(), 23u);
  EXPECT_EQ(slow[1], "minibatch_time");
  EXPECT_EQ(slow[3], "device");
  EXPECT_EQ(slow[4], "xavier-3");
  EXPECT_EQ(slow[5], "3");
  EXPECT_EQ(slow[6], "115");
  EXPECT_EQ(slow[10], "46");  // start_temp_c
  EXPECT_EQ(slow[14], "true");
  const std::vector<std::string> across = absl::StrSplit(lines[5], ',');
  ASSERT_EQ(across.size(), 23u);
  EXPECT_EQ(across[3], "across");
  EXPECT_EQ(across[5], "12");
  EXPECT_EQ(across[16], "1");  // sd_within
  EXPECT_EQ(across[22], "xavier-3");
}

TEST(VariabilityTextTest, DeviceRowsThenTheAcrossLine) {
  const std::string text = VariabilityText(InstanceResponse());
  EXPECT_THAT(text, HasSubstr("xavier-agx | MAXN  (4 devices, 12 runs)"));
  EXPECT_THAT(text, HasSubstr("  minibatch time (ms)\n"));
  EXPECT_THAT(text, HasSubstr("start temp C"));
  // xavier-3: n 3, mean 115, CI 115 -+ 2.484, 15% above the others.
  EXPECT_THAT(text, HasSubstr("xavier-3  3   115  [112.5, 117.5]"));
  EXPECT_THAT(text, HasSubstr("[112.5, 117.5]          46.0"));
  EXPECT_THAT(text, HasSubstr("+15.00%  yes"));
  EXPECT_THAT(text,
              HasSubstr("across 4 devices: between-SD 7.522, within-SD 1, "
                        "ICC 0.983"));
  EXPECT_THAT(text, HasSubstr("outliers: xavier-3\n"));
  EXPECT_THAT(text, HasSubstr("warning: device xavier-0 has 1 run"));
  EXPECT_THAT(text, HasSubstr("method: one-way random-effects ANOVA"));
}

}  // namespace
}  // namespace powersweep
