// Prediction tables of predict/best/pareto: which predictions extrapolate
// (a knob outside the range the model was fitted on).
#include "controller/cli/model_tables.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace powersweep::model_tables {
namespace {

v1::PowerMode Mode(int cores, int64_t cpu_khz, int64_t gpu_hz, int64_t mem_hz) {
  v1::PowerMode m;
  m.set_cpu_cores(cores);
  m.set_cpu_freq_khz(cpu_khz);
  m.set_gpu_freq_hz(gpu_hz);
  m.set_mem_freq_hz(mem_hz);
  return m;
}

// A model fitted on CPU 1.2-2.2 GHz and GPU 0.5-1.0 GHz at 4 cores and one
// memory clock (so cores and memory did not vary).
v1::WorkloadModel Fitted() {
  v1::WorkloadModel m;
  v1::FittedModelData* t = m.mutable_time_model();
  t->add_active_knobs("cpu_freq_khz");
  t->add_active_knobs("gpu_freq_hz");
  *t->add_training_modes() = Mode(4, 1200000, 500000000, 2133000000);
  *t->add_training_modes() = Mode(4, 2200000, 1000000000, 2133000000);
  *t->add_training_modes() = Mode(4, 1700000, 700000000, 2133000000);
  return m;
}

TEST(ModelTablesTest, ExtrapolatedKnobsNamesTheKnobsOutsideTheFittedRange) {
  const v1::WorkloadModel m = Fitted();
  EXPECT_EQ(ExtrapolatedKnobs(m, Mode(4, 1500000, 600000000, 2133000000)), "");
  EXPECT_EQ(ExtrapolatedKnobs(m, Mode(4, 1200000, 1000000000, 2133000000)), "");
  EXPECT_EQ(ExtrapolatedKnobs(m, Mode(4, 800000, 600000000, 2133000000)),
            "cpu_mhz");
  EXPECT_EQ(ExtrapolatedKnobs(m, Mode(4, 2300000, 1300000000, 2133000000)),
            "cpu_mhz, gpu_mhz");
  // Knobs that did not vary are not judged (the model ignores them).
  EXPECT_EQ(ExtrapolatedKnobs(m, Mode(8, 1500000, 600000000, 204000000)), "");
}

TEST(ModelTablesTest, PredictionTablesSayWhichRowsExtrapolate) {
  const v1::WorkloadModel m = Fitted();
  v1::ModePrediction inside, outside;
  *inside.mutable_mode() = Mode(4, 1500000, 600000000, 2133000000);
  inside.set_epoch_time_s(10);
  *outside.mutable_mode() = Mode(4, 1500000, 1300000000, 2133000000);
  outside.set_epoch_time_s(8);
  const Table t = PredictionsTable({&inside, &outside}, /*with_name=*/false,
                                   OutputFormat::kCsv, &m);
  ASSERT_EQ(t.header.back(), "extrapolated");
  EXPECT_EQ(t.rows[0].back(), "no");
  EXPECT_EQ(t.rows[1].back(), "gpu_mhz");
  // Without the model (no basis to judge) there is no such column.
  EXPECT_NE(PredictionsTable({&inside}, false, OutputFormat::kCsv).header.back(),
            "extrapolated");
}

}  // namespace
}  // namespace powersweep::model_tables
