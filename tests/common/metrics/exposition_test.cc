#include "common/metrics/exposition.h"

#include <cmath>
#include <limits>

#include "common/metrics/histogram.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(ExpositionTest, GaugeWithLabelsHasHelpTypeAndOneLinePerSample) {
  ExpositionWriter w;
  w.Begin("powersweep_runs", MetricType::kGauge, "Runs by state.");
  w.Sample({{"state", "done"}}, 16);
  w.Sample({{"state", "failed"}}, 0);
  EXPECT_EQ(w.text(),
            "# HELP powersweep_runs Runs by state.\n"
            "# TYPE powersweep_runs gauge\n"
            "powersweep_runs{state=\"done\"} 16\n"
            "powersweep_runs{state=\"failed\"} 0\n");
}

TEST(ExpositionTest, CounterWithoutLabels) {
  ExpositionWriter w;
  w.Begin("powersweep_runs_leased_total", MetricType::kCounter, "Leases.");
  w.Sample(3);
  EXPECT_EQ(w.text(),
            "# HELP powersweep_runs_leased_total Leases.\n"
            "# TYPE powersweep_runs_leased_total counter\n"
            "powersweep_runs_leased_total 3\n");
}

TEST(ExpositionTest, LabelValuesAndHelpAreEscaped) {
  ExpositionWriter w;
  w.Begin("t", MetricType::kGauge, "a \\ b\nc \"q\"");
  w.Sample({{"sensor", "CPU \"die\"\\1\nx"}}, 1);
  EXPECT_EQ(w.text(),
            "# HELP t a \\\\ b\\nc \"q\"\n"
            "# TYPE t gauge\n"
            "t{sensor=\"CPU \\\"die\\\"\\\\1\\nx\"} 1\n");
}

TEST(ExpositionTest, NamesAreSanitized) {
  EXPECT_EQ(SanitizeMetricName("powersweep_ok:sub"), "powersweep_ok:sub");
  EXPECT_EQ(SanitizeMetricName("bad-name.x"), "bad_name_x");
  EXPECT_EQ(SanitizeMetricName("9lives"), "_9lives");
  EXPECT_EQ(SanitizeMetricName(""), "_");
  ExpositionWriter w;
  w.Begin("g", MetricType::kGauge, "h");
  w.Sample({{"rail name", "VDD_IN"}, {"0x", "v"}}, 2);
  EXPECT_NE(w.text().find("g{rail_name=\"VDD_IN\",_0x=\"v\"} 2\n"),
            std::string::npos)
      << w.text();
}

TEST(ExpositionTest, ValuesPrintAsPrometheusReadsThem) {
  EXPECT_EQ(FormatMetricValue(0), "0");
  EXPECT_EQ(FormatMetricValue(-7), "-7");
  EXPECT_EQ(FormatMetricValue(12.5), "12.5");
  EXPECT_EQ(FormatMetricValue(0.1), "0.1");
  EXPECT_EQ(FormatMetricValue(1e20), "1e+20");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()),
            "-Inf");
  // Round-trips exactly.
  const double third = 1.0 / 3;
  EXPECT_EQ(std::strtod(FormatMetricValue(third).c_str(), nullptr), third);
}

TEST(ExpositionTest, AFamilyNamedTwiceAppearsOnce) {
  ExpositionWriter w;
  w.Begin("dup", MetricType::kGauge, "first");
  w.Sample(1);
  w.Begin("dup", MetricType::kGauge, "second");
  w.Sample(2);
  w.Begin("other", MetricType::kGauge, "o");
  w.Sample(3);
  EXPECT_EQ(w.text(),
            "# HELP dup first\n# TYPE dup gauge\ndup 1\n"
            "# HELP other o\n# TYPE other gauge\nother 3\n");
}

TEST(ExpositionTest, HistogramHasCumulativeBucketsSumAndCount) {
  Histogram h({0.01, 0.1, 1});
  // Binary fractions, so the sum is exact.
  h.Observe(0.0078125);
  h.Observe(0.0625);
  h.Observe(0.0625);
  h.Observe(4);
  ExpositionWriter w;
  w.Begin("powersweep_dispatch_duration_seconds", MetricType::kHistogram,
          "Dispatch.");
  w.Histogram({}, h.Snapshot());
  EXPECT_EQ(w.text(),
            "# HELP powersweep_dispatch_duration_seconds Dispatch.\n"
            "# TYPE powersweep_dispatch_duration_seconds histogram\n"
            "powersweep_dispatch_duration_seconds_bucket{le=\"0.01\"} 1\n"
            "powersweep_dispatch_duration_seconds_bucket{le=\"0.1\"} 3\n"
            "powersweep_dispatch_duration_seconds_bucket{le=\"1\"} 3\n"
            "powersweep_dispatch_duration_seconds_bucket{le=\"+Inf\"} 4\n"
            "powersweep_dispatch_duration_seconds_sum 4.1328125\n"
            "powersweep_dispatch_duration_seconds_count 4\n");
}

TEST(HistogramTest, AValueOnABoundCountsInThatBucket) {
  Histogram h({1, 2});
  h.Observe(1);
  h.Observe(2);
  h.Observe(2.0001);
  HistogramSnapshot s = h.Snapshot();
  EXPECT_EQ(s.cumulative, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(s.count, 3u);
}

TEST(HistogramTest, BoundsAreSortedAndCleaned) {
  Histogram h({2, 1, 2, std::numeric_limits<double>::infinity()});
  EXPECT_EQ(h.Snapshot().bounds, (std::vector<double>{1, 2}));
}

}  // namespace
}  // namespace powersweep
