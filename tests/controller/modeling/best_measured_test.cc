// `best` beyond one predicted pick: the next best candidates under the
// budget (what `best --verify` runs), and an answer from the measured modes
// only (what it answers with), on runs stored from a known law.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "controller/modeling/model_proto.h"
#include "controller/modeling/modeling_service.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/modeling/known_law.h"
#include "tests/controller/modeling/stored_runs.h"

namespace powersweep::modeling {
namespace {

using ::powersweep::testing::LawRun;
using ::powersweep::testing::PlannedModes;
using ::powersweep::testing::StoredRuns;
using ::powersweep::testing::SyntheticRun;
using ::testing::HasSubstr;

class BestMeasuredTest : public ::testing::Test {
 protected:
  BestMeasuredTest() : service_(runs_.store(), runs_.clock()) {}

  void SetUp() override {
    std::vector<SyntheticRun> sweep;
    for (const CustomMode& m : PlannedModes(service_, 10)) {
      sweep.push_back(LawRun(m, 64, "xa-0"));
    }
    ASSERT_EQ(sweep.size(), 10u);
    const int64_t id = runs_.AddSweep(sweep);
    ASSERT_GT(id, 0);
    v1::FitModelsRequest fit;
    fit.set_sweep_id(id);
    auto fitted = service_.FitModels(fit);
    ASSERT_TRUE(fitted.ok()) << fitted.status();
    ASSERT_EQ(fitted->models_size(), 1);
    model_ = fitted->models(0);
    // A budget half way between the fastest and the slowest measured mode.
    double lo = 1e300, hi = 0;
    for (const v1::MeasuredMode& m : model_.measured()) {
      lo = std::min(lo, m.epoch_time_s());
      hi = std::max(hi, m.epoch_time_s());
    }
    budget_s_ = (lo + hi) / 2;
  }

  v1::BestRequest Request() {
    v1::BestRequest r;
    r.mutable_selector()->set_model_id(model_.model_id());
    r.set_max_epoch_time_s(budget_s_);
    return r;
  }

  StoredRuns runs_;
  ModelingService service_;
  v1::WorkloadModel model_;
  double budget_s_ = 0;
};

TEST_F(BestMeasuredTest, CandidatesAreTheNextBestModesUnderTheBudget) {
  v1::BestRequest r = Request();
  r.set_candidates(3);
  auto best = service_.Best(r);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->candidates_size(), 3);
  EXPECT_TRUE(KnobsOf(best->candidates(0).mode()) ==
              KnobsOf(best->best().mode()));
  std::set<int64_t> indices;
  double previous = 0;
  for (const v1::ModePrediction& c : best->candidates()) {
    EXPECT_LE(c.epoch_time_s(), budget_s_);
    EXPECT_GE(c.epoch_energy_j(), previous);  // least energy first
    previous = c.epoch_energy_j();
    indices.insert(c.space_index());
  }
  EXPECT_EQ(indices.size(), 3u);
  // Without the field: no candidates.
  auto plain = service_.Best(Request());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->candidates_size(), 0);
}

TEST_F(BestMeasuredTest, MeasuredOnlyAnswersWithTheBestMeasuredMode) {
  v1::BestRequest r = Request();
  r.set_measured_only(true);
  auto best = service_.Best(r);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->modes_considered(), model_.measured_size());
  EXPECT_THAT(best->objective(), HasSubstr("measured"));
  EXPECT_THAT(best->basis(), HasSubstr("measured figures (means over runs)"));
  EXPECT_FALSE(best->best().has_interval());
  const v1::MeasuredMode* picked = nullptr;
  for (const v1::MeasuredMode& m : model_.measured()) {
    if (KnobsOf(m.mode()) == KnobsOf(best->best().mode())) picked = &m;
  }
  ASSERT_NE(picked, nullptr) << "the answer is not a measured mode";
  EXPECT_DOUBLE_EQ(best->best().epoch_time_s(), picked->epoch_time_s());
  EXPECT_LE(picked->epoch_time_s(), budget_s_);
  for (const v1::MeasuredMode& m : model_.measured()) {
    if (m.epoch_time_s() <= budget_s_) {
      EXPECT_GE(m.epoch_energy_j(), picked->epoch_energy_j());
    }
  }
}

TEST_F(BestMeasuredTest, BadCombinationsNameTheField) {
  v1::BestRequest r = Request();
  r.set_measured_only(true);
  r.set_conservative(true);
  auto both = service_.Best(r);
  EXPECT_EQ(both.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(both.status().message(), HasSubstr("conservative"));
  v1::BestRequest n = Request();
  n.set_candidates(-1);
  EXPECT_THAT(service_.Best(n).status().message(), HasSubstr("candidates"));
  // A budget no measured mode meets: NotFound saying the fastest.
  v1::BestRequest tight = Request();
  tight.set_measured_only(true);
  tight.set_max_epoch_time_s(1e-6);
  auto none = service_.Best(tight);
  EXPECT_TRUE(absl::IsNotFound(none.status())) << none.status();
}

}  // namespace
}  // namespace powersweep::modeling
