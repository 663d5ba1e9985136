// Fits over several sweeps and follow-up plans, as `plan-profiling
// --after-sweep` leads a user to them: the first sweep profiles some modes,
// the follow-up the rest, and `fit --sweep A,B` fits both; the follow-up
// sweep runs like the first (repetitions, placement, stop condition), and
// every answer says which sweeps and runs it rests on.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/modeling/model_proto.h"
#include "controller/modeling/modeling_service.h"
#include "controller/modeling/observations.h"
#include "controller/sweep/sweep_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/modeling/known_law.h"
#include "tests/controller/modeling/stored_runs.h"

namespace powersweep::modeling {
namespace {

using ::powersweep::testing::Ape;
using ::powersweep::testing::LawMinibatchS;
using ::powersweep::testing::LawRun;
using ::powersweep::testing::PlannedModes;
using ::powersweep::testing::StoredRuns;
using ::powersweep::testing::SyntheticRun;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class MultiSweepTest : public ::testing::Test {
 protected:
  MultiSweepTest() : service_(runs_.store(), runs_.clock()) {}

  void SetUp() override {
    modes_ = PlannedModes(service_, 10);
    ASSERT_EQ(modes_.size(), 10u);
    // The first sweep ran 3 of the 10 modes, 3 times each, on every device;
    // the follow-up the other 7.
    v1::SweepSpec first;
    first.set_name("first");
    first.set_repetitions(3);
    first.set_placement(v1::PLACEMENT_EVERY_DEVICE);
    first.set_minibatches(300);
    first.set_telemetry_hz(20);
    std::vector<SyntheticRun> a, b;
    for (size_t i = 0; i < modes_.size(); ++i) {
      (i < 3 ? a : b).push_back(LawRun(modes_[i], 64, "xa-0"));
    }
    first_ = runs_.AddSweep(a, first);
    second_ = runs_.AddSweep(b);
    ASSERT_GT(first_, 0);
    ASSERT_GT(second_, 0);
  }

  StoredRuns runs_;
  ModelingService service_;
  std::vector<CustomMode> modes_;
  int64_t first_ = 0;
  int64_t second_ = 0;
};

TEST_F(MultiSweepTest, AFitOfBothSweepsRestsOnTheRunsOfBoth) {
  v1::FitModelsRequest fit;
  fit.add_sweep_ids(second_);
  fit.add_sweep_ids(first_);
  auto fitted = service_.FitModels(fit);
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  ASSERT_EQ(fitted->models_size(), 1);
  const v1::WorkloadModel& m = fitted->models(0);
  EXPECT_EQ(m.run_ids_size(), 10);
  EXPECT_EQ(m.measured_size(), 10);
  EXPECT_EQ(m.sweep_id(), first_);
  EXPECT_THAT(m.sweep_ids(), ElementsAre(first_, second_));

  // A prediction from it names both sweeps, and `--sweep B` finds it.
  v1::PredictRequest req;
  req.mutable_selector()->set_device_class("xavier-agx");
  req.mutable_selector()->set_model("lenet5");
  req.mutable_selector()->set_sweep_id(second_);
  *req.add_modes() = ToPowerMode(modes_[5]);
  auto predicted = service_.Predict(req);
  ASSERT_TRUE(predicted.ok()) << predicted.status();
  EXPECT_EQ(predicted->model().model_id(), m.model_id());
  EXPECT_THAT(predicted->basis(),
              HasSubstr(absl::StrCat("10 runs of sweeps ", first_, ", ",
                                     second_)));
  EXPECT_LT(Ape(predicted->predictions(0).epoch_time_s(),
                LawMinibatchS(modes_[5]) * 937),
            1.0);
}

TEST_F(MultiSweepTest, TheFirstSweepAloneHasTooFewModesForTheSameModel) {
  // What fitting only the last sweep (the old `--sweep 8 --sweep 12`)
  // gave: a model of 7 modes, not 10.
  v1::FitModelsRequest fit;
  fit.set_sweep_id(second_);
  auto fitted = service_.FitModels(fit);
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  ASSERT_EQ(fitted->models_size(), 1);
  EXPECT_EQ(fitted->models(0).measured_size(), 7);
  EXPECT_THAT(fitted->models(0).sweep_ids(), ElementsAre(second_));
}

TEST_F(MultiSweepTest, BadSweepIdsAreNamed) {
  v1::FitModelsRequest fit;
  fit.add_sweep_ids(first_);
  fit.add_sweep_ids(-4);
  auto bad = service_.FitModels(fit);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("sweep: -4 is not a sweep id"));
  fit.set_sweep_ids(1, second_ + 50);
  auto unknown = service_.FitModels(fit);
  EXPECT_TRUE(absl::IsNotFound(unknown.status())) << unknown.status();
  EXPECT_THAT(unknown.status().message(),
              HasSubstr(absl::StrCat(second_ + 50)));
  EXPECT_EQ(service_.FitModels(v1::FitModelsRequest()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(MultiSweepTest, AFollowUpPlanRunsLikeTheSweepItBuildsOn) {
  v1::PlanProfilingRequest req;
  req.set_device_class("xavier-agx");
  req.set_k(4);
  req.set_after_sweep_id(first_);
  auto next = service_.PlanProfiling(req);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->already_profiled_size(), 3);
  EXPECT_EQ(next->sweep().repetitions(), 3);
  EXPECT_EQ(next->sweep().placement(), v1::PLACEMENT_EVERY_DEVICE);
  EXPECT_EQ(next->sweep().minibatches(), 300);
  EXPECT_EQ(next->sweep().telemetry_hz(), 20);
  EXPECT_THAT(next->notes(),
              ::testing::Contains(HasSubstr(absl::StrCat(
                  "kept from sweep ", first_,
                  ": repetitions 3, minibatches 300, placement "
                  "every_device"))));
  // The sweep file says so and tells how to fit both.
  EXPECT_THAT(next->sweep_yaml(),
              HasSubstr(absl::StrCat("fit --sweep ", first_, ",ID")));
  auto parsed = ParseSweepYaml(next->sweep_yaml());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->repetitions(), 3);
  EXPECT_EQ(parsed->placement(), v1::PLACEMENT_EVERY_DEVICE);

  // What the request sets wins over the first sweep.
  req.set_repetitions(2);
  req.set_minibatches(100);
  auto asked = service_.PlanProfiling(req);
  ASSERT_TRUE(asked.ok()) << asked.status();
  EXPECT_EQ(asked->sweep().repetitions(), 2);
  EXPECT_EQ(asked->sweep().minibatches(), 100);
  EXPECT_EQ(asked->sweep().placement(), v1::PLACEMENT_EVERY_DEVICE);
}

TEST(CollectObservationsTest, RunsOfTwoSweepsGroupByWorkload) {
  StoredRuns runs;
  v1::PowerMode maxn;
  maxn.set_cpu_cores(8);
  maxn.set_cpu_freq_khz(2265600);
  maxn.set_gpu_freq_hz(1377000000);
  maxn.set_mem_freq_hz(2133000000);
  const CustomMode mode = KnobsOf(maxn);
  const int64_t a = runs.AddSweep({LawRun(mode, 64, "xa-0")});
  const int64_t b =
      runs.AddSweep({LawRun(mode, 64, "xa-1"), LawRun(mode, 32, "xa-1")});
  auto obs = CollectObservations(runs.store(), std::vector<int64_t>{b, a, b},
                                 PowerCatalog::Default());
  ASSERT_TRUE(obs.ok()) << obs.status();
  EXPECT_THAT(obs->sweep_ids, ElementsAre(a, b));
  ASSERT_EQ(obs->groups.size(), 2u);  // batch 32 and batch 64
  const ObservationGroup& b64 =
      obs->groups[0].key.batch_size == 64 ? obs->groups[0] : obs->groups[1];
  ASSERT_EQ(b64.runs.size(), 2u);
  EXPECT_EQ(b64.runs[0].sweep_id, a);
  EXPECT_EQ(b64.runs[1].sweep_id, b);
}

}  // namespace
}  // namespace powersweep::modeling
