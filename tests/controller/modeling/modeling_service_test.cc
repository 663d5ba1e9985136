// ModelingService end to end on a real SqliteStore: plan the modes to
// profile (and check the sweep file it writes is one `powersweep submit`
// accepts), store runs at those modes from a known time and power law,
// fit, and query: predict, best, pareto, and the selector's errors.
#include "controller/modeling/modeling_service.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/power_mode_text.h"
#include "controller/modeling/class_space.h"
#include "controller/modeling/model_form.h"
#include "controller/modeling/model_proto.h"
#include "controller/sweep/sweep_file.h"
#include "controller/sweep/validate.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/controller/modeling/known_law.h"
#include "tests/controller/modeling/stored_runs.h"

namespace powersweep::modeling {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::powersweep::testing::Ape;
using ::powersweep::testing::LawMinibatchS;
using ::powersweep::testing::LawPowerW;
using ::powersweep::testing::LawRun;
using ::powersweep::testing::LenetSpec;
using ::powersweep::testing::StoredRuns;
using ::powersweep::testing::SyntheticRun;
using ::testing::HasSubstr;

constexpr double kMinibatchesPerEpoch = 937;  // fashion-mnist train, batch 64

double MinibatchS(const CustomMode& m) { return LawMinibatchS(m); }
double PowerW(const CustomMode& m) { return LawPowerW(m); }
double EpochS(const CustomMode& m) {
  return MinibatchS(m) * kMinibatchesPerEpoch;
}
double EpochJ(const CustomMode& m) { return PowerW(m) * EpochS(m); }

SyntheticRun TwinRun(const CustomMode& mode, int32_t batch = 64) {
  return LawRun(mode, batch, "xavier-agx-twin-0");
}

class ModelingServiceTest : public ::testing::Test {
 protected:
  ModelingServiceTest() : service_(runs_.store(), runs_.clock()) {}

  void SetUp() override {
    v1::PlanProfilingRequest plan;
    plan.set_device_class("xavier-agx");
    plan.set_k(10);
    auto planned = service_.PlanProfiling(plan);
    ASSERT_TRUE(planned.ok()) << planned.status();
    plan_ = *planned;
    std::vector<SyntheticRun> sweep;
    for (const v1::PowerMode& m : plan_.modes())
      sweep.push_back(TwinRun(KnobsOf(m)));
    // A second workload profiled at one mode only: it cannot be fitted.
    sweep.push_back(TwinRun(KnobsOf(plan_.modes(0)), 128));
    sweep.push_back(TwinRun(KnobsOf(plan_.modes(0)), 128));
    sweep_id_ = runs_.AddSweep(sweep);
    ASSERT_GT(sweep_id_, 0);
    v1::FitModelsRequest fit;
    fit.set_sweep_id(sweep_id_);
    auto fitted = service_.FitModels(fit);
    ASSERT_TRUE(fitted.ok()) << fitted.status();
    fit_ = *fitted;
    ASSERT_EQ(fit_.models_size(), 1);
  }

  v1::ModelSelector Selector() {
    v1::ModelSelector s;
    s.set_device_class("xavier-agx");
    s.set_model("lenet5");
    s.set_batch_size(64);
    return s;
  }

  ModeSpace Space() { return *PowerCatalog::Default().Space("xavier-agx"); }

  StoredRuns runs_;
  ModelingService service_;
  v1::PlanProfilingResponse plan_;
  int64_t sweep_id_ = 0;
  v1::FitModelsResponse fit_;
};

TEST_F(ModelingServiceTest, PlanWritesASweepFileThatSubmitAccepts) {
  EXPECT_EQ(plan_.modes_size(), 10);
  EXPECT_EQ(plan_.space_size(), 29232);
  EXPECT_EQ(plan_.time_form(), "overlap");
  EXPECT_EQ(plan_.energy_form(), "power_util_x_time");
  auto parsed = ParseSweepYaml(plan_.sweep_yaml());
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << plan_.sweep_yaml();
  EXPECT_TRUE(MessageDifferencer::Equals(*parsed, plan_.sweep()))
      << parsed->DebugString() << "\nvs\n"
      << plan_.sweep().DebugString();
  ASSERT_EQ(parsed->power_modes_size(), 10);
  EXPECT_EQ(parsed->device_classes(0), "xavier-agx");
  EXPECT_EQ(parsed->models(0), "lenet5");
  EXPECT_EQ(parsed->batch_sizes(0), 64);
  EXPECT_EQ(parsed->minibatches(), 200);
  std::vector<std::string> warnings;
  ValidationContext ctx;
  absl::Status valid = ValidateSweep(WithDefaults(*parsed), ctx, &warnings);
  EXPECT_TRUE(valid.ok()) << valid;
  // Every proposed mode is a point of the space, all different.
  const ModeSpace space = Space();
  std::vector<int64_t> indices;
  for (const v1::PowerMode& m : parsed->power_modes()) {
    auto index = space.IndexOf(KnobsOf(m));
    ASSERT_TRUE(index.ok()) << index.status();
    indices.push_back(*index);
  }
  std::sort(indices.begin(), indices.end());
  EXPECT_EQ(std::unique(indices.begin(), indices.end()), indices.end());
}

TEST_F(ModelingServiceTest, FitStoresOneModelPerWorkloadAndReportsTheRest) {
  const v1::WorkloadModel& m = fit_.models(0);
  EXPECT_GT(m.model_id(), 0);
  EXPECT_EQ(m.sweep_id(), sweep_id_);
  EXPECT_EQ(m.batch_size(), 64);
  EXPECT_EQ(m.run_ids_size(), 10);
  EXPECT_EQ(m.measured_size(), 10);
  EXPECT_EQ(m.space().size(), 29232);
  EXPECT_EQ(m.energy_provenance(), v1::PROVENANCE_SIMULATED);
  EXPECT_EQ(m.time_provenance(), v1::PROVENANCE_SIMULATED);
  EXPECT_THAT(m.data_provenance(), HasSubstr("simulated"));
  EXPECT_EQ(m.epoch().minibatches(), 937);
  EXPECT_EQ(m.fitted_unix_ms(), absl::ToUnixMillis(runs_.clock()->Now()));
  // Every time form was tried, the paper's linear one included.
  std::vector<std::string> forms;
  int chosen = 0;
  for (const v1::ModelFormCandidate& c : m.time_model().candidates()) {
    forms.push_back(c.form());
    chosen += c.chosen();
    if (c.form() == "linear") {
      EXPECT_TRUE(c.cross_validated()) << c.reason();
    }
  }
  EXPECT_EQ(forms, TimeFormNames());
  EXPECT_EQ(chosen, 1);
  EXPECT_LT(m.time_model().cv_mape_pct(), 1.0);  // the law is reciprocal
  EXPECT_EQ(m.time_model().held_out_size(), 10);
  ASSERT_TRUE(m.has_energy_model());
  EXPECT_EQ(m.energy_model().time_form(), m.time_model().form());
  EXPECT_LT(m.energy_model().cv_mape_pct(), 2.0);

  ASSERT_EQ(fit_.problems_size(), 1);
  EXPECT_THAT(fit_.problems(0),
              HasSubstr("lenet5 fashion-mnist train batch 128"));
  EXPECT_THAT(fit_.problems(0), HasSubstr("1 distinct mode"));
  EXPECT_THAT(fit_.problems(0), HasSubstr("got 1"));
  EXPECT_EQ(fit_.runs_used(), 10);

  v1::ListModelsRequest list;
  auto listed = service_.ListModels(list);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->models_size(), 1);
  EXPECT_EQ(listed->models(0).model_id(), m.model_id());
}

TEST_F(ModelingServiceTest, PredictMarksMeasuredModesAndResolvesPresets) {
  v1::PredictRequest req;
  *req.mutable_selector() = Selector();
  const CustomMode profiled = KnobsOf(plan_.modes(3));
  *req.add_modes() = ToPowerMode(profiled);
  req.add_modes()->set_preset("MAXN");
  v1::PowerMode partial;  // 4 cores at 1190.4 MHz; the rest at the maximum
  partial.set_cpu_cores(4);
  partial.set_cpu_freq_khz(1190400);
  *req.add_modes() = partial;
  auto resp = service_.Predict(req);
  ASSERT_TRUE(resp.ok()) << resp.status();
  ASSERT_EQ(resp->predictions_size(), 3);
  EXPECT_THAT(resp->basis(), HasSubstr("predictions of model"));
  EXPECT_THAT(resp->basis(), HasSubstr("simulated"));

  const v1::ModePrediction& p0 = resp->predictions(0);
  EXPECT_TRUE(p0.measured());
  EXPECT_NEAR(p0.measured_epoch_time_s(), EpochS(profiled), 1e-9);
  EXPECT_LT(Ape(p0.epoch_time_s(), EpochS(profiled)), 1.0);

  const v1::ModePrediction& maxn = resp->predictions(1);
  const CustomMode top{8, 2265600, 1377000000, 2133000000};
  EXPECT_EQ(KnobsOf(maxn.mode()), top);
  EXPECT_EQ(maxn.name(), "MAXN");
  EXPECT_EQ(maxn.space_index(), 29231);

  const v1::ModePrediction& p2 = resp->predictions(2);
  const CustomMode filled{4, 1190400, 1377000000, 2133000000};
  EXPECT_EQ(KnobsOf(p2.mode()), filled);
  EXPECT_FALSE(p2.measured());
  EXPECT_LT(Ape(p2.epoch_time_s(), EpochS(filled)), 2.0);
  EXPECT_LT(Ape(p2.epoch_energy_j(), EpochJ(filled)), 3.0);
  EXPECT_NEAR(p2.power_w(), p2.epoch_energy_j() / p2.epoch_time_s(), 1e-9);
}

TEST_F(ModelingServiceTest, PredictRefusesModesNotOfTheClass) {
  v1::PredictRequest req;
  *req.mutable_selector() = Selector();
  req.add_modes()->set_gpu_freq_hz(500000000);
  auto resp = service_.Predict(req);
  ASSERT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(resp.status().message(), HasSubstr("modes[0]"));
  EXPECT_THAT(resp.status().message(),
              HasSubstr("nearest: 420750000, 522750000"));
  req.clear_modes();
  EXPECT_EQ(service_.Predict(req).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ModelingServiceTest, BestUnderATimeBudgetIsNearTheTrueOptimum) {
  const ModeSpace space = Space();
  double fastest = 1e300;
  space.ForEach([&](const CustomMode& m) {
    fastest = std::min(fastest, EpochS(m));
    return true;
  });
  const double budget = 2 * fastest;
  double optimum = 1e300;
  space.ForEach([&](const CustomMode& m) {
    if (EpochS(m) <= budget) optimum = std::min(optimum, EpochJ(m));
    return true;
  });
  v1::BestRequest req;
  *req.mutable_selector() = Selector();
  req.set_max_epoch_time_s(budget);
  auto best = service_.Best(req);
  ASSERT_TRUE(best.ok()) << best.status();
  const CustomMode pick = KnobsOf(best->best().mode());
  EXPECT_LE(best->best().epoch_time_s(), budget);
  EXPECT_LE(EpochS(pick), 1.02 * budget);
  EXPECT_LT(Ape(EpochJ(pick), optimum), 2.0);
  EXPECT_EQ(best->modes_considered(), 29232);
  EXPECT_EQ(best->default_mode().name(), "MAXN");
  EXPECT_THAT(best->objective(), HasSubstr("least epoch energy"));

  // The conservative pick meets the budget on its interval's upper end.
  req.set_conservative(true);
  auto safe = service_.Best(req);
  ASSERT_TRUE(safe.ok()) << safe.status();
  const double hi = safe->best().has_interval() ? safe->best().epoch_time_hi_s()
                                                : safe->best().epoch_time_s();
  EXPECT_LE(hi, budget);
}

TEST_F(ModelingServiceTest, BestNeedsExactlyOneReachableBudget) {
  v1::BestRequest req;
  *req.mutable_selector() = Selector();
  EXPECT_EQ(service_.Best(req).status().code(),
            absl::StatusCode::kInvalidArgument);
  req.set_max_epoch_time_s(100);
  req.set_max_power_w(10);
  EXPECT_EQ(service_.Best(req).status().code(),
            absl::StatusCode::kInvalidArgument);
  req.clear_max_epoch_time_s();
  req.set_max_power_w(0.5);  // below any mode's power
  auto none = service_.Best(req);
  EXPECT_TRUE(absl::IsNotFound(none.status())) << none.status();
  EXPECT_THAT(none.status().message(), HasSubstr("lenet5"));
}

TEST_F(ModelingServiceTest, ParetoFrontAndTheDefaultMode) {
  v1::ParetoRequest req;
  *req.mutable_selector() = Selector();
  auto front = service_.Pareto(req);
  ASSERT_TRUE(front.ok()) << front.status();
  ASSERT_GT(front->front_size(), 1);
  EXPECT_EQ(front->modes_considered(), 29232);
  for (int i = 1; i < front->front_size(); ++i) {
    EXPECT_LE(front->front(i - 1).epoch_time_s(),
              front->front(i).epoch_time_s());
    EXPECT_GE(front->front(i - 1).epoch_energy_j(),
              front->front(i).epoch_energy_j());
  }
  EXPECT_EQ(front->default_mode_name(), "MAXN");
  EXPECT_TRUE(front->default_evaluated());
  if (!front->default_on_front()) {
    const v1::ModePrediction& by = front->default_dominated_by();
    EXPECT_LE(by.epoch_time_s(), front->default_mode().epoch_time_s());
    EXPECT_LE(by.epoch_energy_j(), front->default_mode().epoch_energy_j());
  }

  req.set_measured_only(true);
  auto measured = service_.Pareto(req);
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_EQ(measured->modes_considered(), 10);
  for (const v1::ModePrediction& p : measured->front()) {
    EXPECT_TRUE(p.measured());
    EXPECT_NEAR(p.epoch_time_s(), EpochS(KnobsOf(p.mode())), 1e-9);
  }
  EXPECT_THAT(measured->basis(), HasSubstr("measured figures"));
}

TEST_F(ModelingServiceTest, SelectorMatchingTwoWorkloadsIsAnError) {
  // Fit a second workload (batch 32) on the same modes.
  std::vector<SyntheticRun> sweep;
  for (const v1::PowerMode& m : plan_.modes())
    sweep.push_back(TwinRun(KnobsOf(m), 32));
  const int64_t second = runs_.AddSweep(sweep);
  v1::FitModelsRequest fit;
  fit.set_sweep_id(second);
  ASSERT_TRUE(service_.FitModels(fit).ok());
  v1::PredictRequest req;
  req.mutable_selector()->set_device_class("xavier-agx");
  req.mutable_selector()->set_model("lenet5");
  req.add_modes()->set_preset("MAXN");
  auto resp = service_.Predict(req);
  ASSERT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(resp.status().message(), HasSubstr("batch 32"));
  EXPECT_THAT(resp.status().message(), HasSubstr("batch 64"));
  req.mutable_selector()->set_batch_size(32);
  EXPECT_TRUE(service_.Predict(req).ok());
}

TEST_F(ModelingServiceTest, PlanAfterASweepProposesOtherModes) {
  v1::PlanProfilingRequest req;
  req.set_device_class("xavier-agx");
  req.set_k(4);
  req.set_after_sweep_id(sweep_id_);
  auto next = service_.PlanProfiling(req);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->already_profiled_size(), 10);
  ASSERT_EQ(next->modes_size(), 4);
  for (const v1::PowerMode& m : next->modes()) {
    for (const v1::PowerMode& p : next->already_profiled()) {
      EXPECT_FALSE(KnobsOf(m) == KnobsOf(p));
    }
  }
  ASSERT_TRUE(next->has_current_model());
  EXPECT_EQ(next->current_model().model_id(), fit_.models(0).model_id());
  EXPECT_TRUE(ParseSweepYaml(next->sweep_yaml()).ok());
}

TEST_F(ModelingServiceTest, FitOfAnUnknownSweepIsNotFound) {
  v1::FitModelsRequest fit;
  fit.set_sweep_id(sweep_id_ + 100);
  EXPECT_TRUE(absl::IsNotFound(service_.FitModels(fit).status()));
  fit.set_sweep_id(0);
  EXPECT_EQ(service_.FitModels(fit).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace powersweep::modeling

namespace powersweep::modeling {
namespace {

// host: the space comes from the registered device (cores, CPU steps); a
// plan varies only cores and CPU frequency, its sweep file validates
// against the device, and a fit on runs at the plan's modes predicts the
// rest of the host's space.
TEST(ModelingServiceHostTest, PlanAndFitOverTheDevicesCoresAndCpuSteps) {
  StoredRuns runs;
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(4);
  for (int64_t khz : {800000, 1200000, 1600000, 2000000, 2400000}) {
    caps.add_cpu_freqs_khz(khz);
  }
  runs.AddDevice("host-0", "host", caps);
  ModelingService service(runs.store(), runs.clock());

  v1::PlanProfilingRequest plan_req;
  plan_req.set_device_class("host");
  plan_req.set_k(7);
  auto plan = service.PlanProfiling(plan_req);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->space_size(), 20);  // 4 core counts x 5 steps
  EXPECT_EQ(plan->time_form(), "reciprocal_cross");
  ASSERT_EQ(plan->modes_size(), 7);
  for (const v1::PowerMode& m : plan->modes()) {
    EXPECT_GT(m.cpu_cores(), 0);
    EXPECT_GT(m.cpu_freq_khz(), 0);
    EXPECT_EQ(m.gpu_freq_hz(), 0);
    EXPECT_EQ(m.mem_freq_hz(), 0);
  }
  auto parsed = ParseSweepYaml(plan->sweep_yaml());
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << plan->sweep_yaml();
  ValidationContext ctx;
  v1::DeviceStatus device;
  device.mutable_identity()->set_device_id("host-0");
  device.mutable_identity()->set_device_class("host");
  device.mutable_identity()->set_platform("host");
  *device.mutable_capabilities() = caps;
  device.mutable_capabilities()->add_runtimes(v1::RUNTIME_NATIVE);
  ctx.known_devices.push_back(device);
  std::vector<std::string> warnings;
  absl::Status valid = ValidateSweep(WithDefaults(*parsed), ctx, &warnings);
  EXPECT_TRUE(valid.ok()) << valid;

  // Time = serial work / clock + parallel work / (cores x clock); power
  // grows with cores and clock; energy modeled, as the host agent does.
  auto minibatch_s = [](const CustomMode& m) {
    const double ghz = m.cpu_freq_khz * 1e-6;
    return 0.004 / ghz + 0.012 / (m.cpu_cores * ghz);
  };
  auto power_w = [](const CustomMode& m) {
    return 20 + 4.0 * m.cpu_cores * m.cpu_freq_khz * 1e-6;
  };
  std::vector<SyntheticRun> sweep;
  for (const v1::PowerMode& pm : plan->modes()) {
    const CustomMode m = KnobsOf(pm);
    SyntheticRun r;
    r.spec = LenetSpec("host");
    r.spec.mutable_power_mode()->set_cpu_cores(m.cpu_cores);
    r.spec.mutable_power_mode()->set_cpu_freq_khz(m.cpu_freq_khz);
    r.actual = r.spec.power_mode();
    r.e2e_s = {minibatch_s(m), minibatch_s(m)};
    r.energy_j = 2 * minibatch_s(m) * power_w(m);
    r.duration_s = 2 * minibatch_s(m);
    r.energy_provenance = v1::PROVENANCE_MODELED;
    r.device_id = "host-0";
    sweep.push_back(r);
  }
  const int64_t sweep_id = runs.AddSweep(sweep);
  v1::FitModelsRequest fit_req;
  fit_req.set_sweep_id(sweep_id);
  auto fit = service.FitModels(fit_req);
  ASSERT_TRUE(fit.ok()) << fit.status();
  ASSERT_EQ(fit->models_size(), 1) << absl::StrJoin(fit->problems(), "\n");
  const v1::WorkloadModel& model = fit->models(0);
  EXPECT_EQ(model.space().cpu_cores(), 4);
  EXPECT_EQ(model.space().cpu_freqs_khz_size(), 5);
  EXPECT_EQ(model.energy_provenance(), v1::PROVENANCE_MODELED);
  EXPECT_THAT(model.data_provenance(), HasSubstr("times measured"));
  EXPECT_THAT(model.data_provenance(), HasSubstr("energy modeled"));

  // Every mode of the host's space, predicted.
  v1::PredictRequest predict;
  predict.mutable_selector()->set_device_class("host");
  predict.mutable_selector()->set_model("lenet5");
  const ModeSpace space = ToModeSpace("host", model.space());
  space.ForEach([&](const CustomMode& m) {
    *predict.add_modes() = ToPowerMode(m);
    return true;
  });
  auto predicted = service.Predict(predict);
  ASSERT_TRUE(predicted.ok()) << predicted.status();
  ASSERT_EQ(predicted->predictions_size(), 20);
  for (const v1::ModePrediction& p : predicted->predictions()) {
    const CustomMode m = KnobsOf(p.mode());
    EXPECT_LT(Ape(p.epoch_time_s(), minibatch_s(m) * kMinibatchesPerEpoch), 1.0)
        << PowerModeText(p.mode(), "-");
  }
  // A GPU clock does not exist on a host.
  v1::PredictRequest gpu = predict;
  gpu.clear_modes();
  gpu.add_modes()->set_gpu_freq_hz(1000000000);
  EXPECT_EQ(service.Predict(gpu).status().code(),
            absl::StatusCode::kInvalidArgument);
  // The default mode of a host is every knob at its maximum.
  v1::ParetoRequest pareto;
  *pareto.mutable_selector() = predict.selector();
  auto front = service.Pareto(pareto);
  ASSERT_TRUE(front.ok()) << front.status();
  EXPECT_EQ(front->default_mode_name(), "all knobs at maximum");
  EXPECT_EQ(KnobsOf(front->default_mode().mode()),
            (CustomMode{4, 2400000, 0, 0}));

  // A stored space whose GPU table holds a 0 enumerates modes it cannot
  // index: the front's modes are predicted one by one (space index -1)
  // instead of being looked up at an index the space did not give.
  v1::WorkloadModel odd = model;
  odd.clear_model_id();
  odd.mutable_space()->add_gpu_freqs_hz(0);
  auto odd_id = runs.store()->SaveModel(odd);
  ASSERT_TRUE(odd_id.ok()) << odd_id.status();
  pareto.mutable_selector()->set_model_id(*odd_id);
  auto odd_front = service.Pareto(pareto);
  ASSERT_TRUE(odd_front.ok()) << odd_front.status();
  ASSERT_GT(odd_front->front_size(), 0);
  for (const v1::ModePrediction& p : odd_front->front()) {
    EXPECT_EQ(p.space_index(), -1);
    EXPECT_GT(p.epoch_time_s(), 0);
  }
}

TEST(ModelingServiceHostTest, HostPlanWithoutADeviceSaysWhy) {
  StoredRuns runs;
  ModelingService service(runs.store(), runs.clock());
  v1::PlanProfilingRequest req;
  req.set_device_class("host");
  req.set_k(4);
  auto plan = service.PlanProfiling(req);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(plan.status().message(), HasSubstr("core count"));
}

}  // namespace
}  // namespace powersweep::modeling
