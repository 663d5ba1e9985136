// Device instances in the models: a pooled fit says it pooled; a fit with
// calibration offsets, or one per device, lets `predict --device` answer
// for a device that runs 15% slower than its class with the error of the
// class's other devices, where the pooled class model misses it.
#include "controller/modeling/instances.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/power_mode_text.h"
#include "controller/modeling/class_space.h"
#include "controller/modeling/model_proto.h"
#include "controller/modeling/modeling_service.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/modeling/known_law.h"
#include "tests/controller/modeling/stored_runs.h"

namespace powersweep::modeling {
namespace {

using ::powersweep::testing::Ape;
using ::powersweep::testing::LawMinibatchS;
using ::powersweep::testing::LawRun;
using ::powersweep::testing::StoredRuns;
using ::powersweep::testing::SyntheticRun;
using ::testing::HasSubstr;

double MinibatchS(const CustomMode& m) { return LawMinibatchS(m); }

// A run at `mode` on `device`, `slowdown` times slower at the same power.
SyntheticRun RunOn(const std::string& device, const CustomMode& mode,
                   double slowdown) {
  return LawRun(mode, 64, device, slowdown);
}

class InstancesTest : public ::testing::Test {
 protected:
  InstancesTest() : service_(runs_.store(), runs_.clock()) {}

  void SetUp() override {
    v1::PlanProfilingRequest plan;
    plan.set_device_class("xavier-agx");
    plan.set_k(10);
    auto planned = service_.PlanProfiling(plan);
    ASSERT_TRUE(planned.ok()) << planned.status();
    std::vector<SyntheticRun> sweep;
    for (const v1::PowerMode& m : planned->modes()) {
      modes_.push_back(KnobsOf(m));
      for (const char* d : {"xa-0", "xa-1"}) {
        sweep.push_back(RunOn(d, KnobsOf(m), 1.0));
      }
      sweep.push_back(RunOn("xa-2", KnobsOf(m), 1.15));
    }
    sweep_id_ = runs_.AddSweep(sweep);
    ASSERT_GT(sweep_id_, 0);
  }

  v1::FitModelsResponse Fit(const std::string& instances) {
    v1::FitModelsRequest fit;
    fit.set_sweep_id(sweep_id_);
    fit.set_instances(instances);
    auto fitted = service_.FitModels(fit);
    EXPECT_TRUE(fitted.ok()) << fitted.status();
    return fitted.ok() ? *fitted : v1::FitModelsResponse();
  }

  // The prediction error (%) of epoch time at a profiled mode, for
  // `device` ("" = the class model) against a device `slowdown` times
  // slower than nominal.
  double TimeError(const std::string& device, double slowdown,
                   std::string* basis) {
    v1::PredictRequest req;
    req.mutable_selector()->set_device_class("xavier-agx");
    req.mutable_selector()->set_model("lenet5");
    req.set_device_id(device);
    const CustomMode mode = modes_[4];
    *req.add_modes() = ToPowerMode(mode);
    auto resp = service_.Predict(req);
    EXPECT_TRUE(resp.ok()) << resp.status();
    if (!resp.ok()) return 1e9;
    *basis = resp->basis();
    const double truth = MinibatchS(mode) * slowdown * 937;
    return Ape(resp->predictions(0).epoch_time_s(), truth);
  }

  void SaveOffsets() {
    // What `variability --save-offsets` measures here: each device's mean
    // over the class mean (1, 1, 1.15 -> mean 1.05).
    std::vector<v1::DeviceOffset> offsets;
    for (const auto& [device, f] :
         std::vector<std::pair<std::string, double>>{
             {"xa-0", 1 / 1.05}, {"xa-1", 1 / 1.05}, {"xa-2", 1.15 / 1.05}}) {
      for (const char* metric : {"time", "energy"}) {
        v1::DeviceOffset o;
        o.set_device_id(device);
        o.set_device_class("xavier-agx");
        o.set_metric(metric);
        o.set_factor(f);
        offsets.push_back(o);
      }
    }
    ASSERT_TRUE(runs_.store()->SaveDeviceOffsets(offsets).ok());
  }

  StoredRuns runs_;
  ModelingService service_;
  std::vector<CustomMode> modes_;
  int64_t sweep_id_ = 0;
};

TEST_F(InstancesTest, APooledFitSaysSoAndMissesTheSlowDevice) {
  v1::FitModelsResponse fit = Fit("");
  ASSERT_EQ(fit.models_size(), 1);
  EXPECT_EQ(fit.models(0).instances(), "pooled");
  EXPECT_THAT(fit.models(0).notes(),
              ::testing::Contains(HasSubstr("runs of 3 devices are fitted as "
                                            "one class")));
  std::string basis;
  // No offsets stored and no per-device model: a clear refusal.
  v1::PredictRequest req;
  req.mutable_selector()->set_device_class("xavier-agx");
  req.mutable_selector()->set_model("lenet5");
  req.set_device_id("xa-2");
  *req.add_modes() = ToPowerMode(modes_[4]);
  auto refused = service_.Predict(req);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("device xa-2: no model fitted on its runs alone"));
  // The class model is off for xa-2 by about the 1.15 / 1.05 ratio.
  EXPECT_GT(TimeError("", 1.15, &basis), 7.0);
}

TEST_F(InstancesTest, OffsetsBringTheSlowDevicesErrorDownToTheClasss) {
  SaveOffsets();
  v1::FitModelsResponse fit = Fit("offsets");
  ASSERT_EQ(fit.models_size(), 1);
  EXPECT_EQ(fit.models(0).instances(), "offsets");
  EXPECT_EQ(fit.models(0).offsets_applied_size(), 6);
  std::string basis;
  EXPECT_LT(TimeError("xa-2", 1.15, &basis), 1.0);
  EXPECT_THAT(basis, HasSubstr("calibration offsets of xa-2 applied"));
  EXPECT_THAT(basis, HasSubstr("time x1.095, energy x1.095"));
  // The nominal devices too, through their own offsets.
  EXPECT_LT(TimeError("xa-0", 1.0, &basis), 1.0);
}

TEST_F(InstancesTest, PerDeviceModelsAnswerForTheirDeviceOnly) {
  v1::FitModelsResponse fit = Fit("per_device");
  ASSERT_EQ(fit.models_size(), 3);
  std::vector<std::string> devices;
  for (const v1::WorkloadModel& m : fit.models()) {
    EXPECT_EQ(m.instances(), "device");
    devices.push_back(m.device_id());
  }
  EXPECT_THAT(devices, ::testing::ElementsAre("xa-0", "xa-1", "xa-2"));
  std::string basis;
  EXPECT_LT(TimeError("xa-2", 1.15, &basis), 1.0);
  EXPECT_THAT(basis, HasSubstr("the model of xa-2's runs alone"));
  // A class query finds no class model among per-device ones.
  v1::PredictRequest req;
  req.mutable_selector()->set_device_class("xavier-agx");
  req.mutable_selector()->set_model("lenet5");
  *req.add_modes() = ToPowerMode(modes_[4]);
  EXPECT_EQ(service_.Predict(req).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(InstancesTest, AModelNamedByIdAnswersForADevice) {
  // Once per-device models existed, `predict --model-id N --device D`
  // failed with "model N ... does not match model N device=D".
  SaveOffsets();
  const v1::FitModelsResponse per_device = Fit("per_device");
  const v1::FitModelsResponse offsets = Fit("offsets");
  ASSERT_EQ(per_device.models_size(), 3);
  ASSERT_EQ(offsets.models_size(), 1);
  v1::PredictRequest req;
  *req.add_modes() = ToPowerMode(modes_[4]);
  req.set_device_id("xa-2");

  // xa-2's own model.
  req.mutable_selector()->set_model_id(per_device.models(2).model_id());
  auto own = service_.Predict(req);
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_THAT(own->basis(), HasSubstr("the model of xa-2's runs alone"));
  // The class model, with xa-2's offsets.
  req.mutable_selector()->set_model_id(offsets.models(0).model_id());
  auto scaled = service_.Predict(req);
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  EXPECT_THAT(scaled->basis(), HasSubstr("calibration offsets of xa-2"));
  EXPECT_LT(Ape(scaled->predictions(0).epoch_time_s(),
                MinibatchS(modes_[4]) * 1.15 * 937),
            1.0);
  // Another device's own model is refused, naming both devices.
  req.mutable_selector()->set_model_id(per_device.models(0).model_id());
  auto other = service_.Predict(req);
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(other.status().message(),
              HasSubstr("was fitted on xa-0's runs alone, not xa-2's"));
}

TEST_F(InstancesTest, ModelsListsEveryDevicesModelsAndFiltersByDevice) {
  Fit("");
  Fit("per_device");
  auto all = service_.ListModels(v1::ListModelsRequest());
  ASSERT_TRUE(all.ok()) << all.status();
  std::vector<std::string> listed;
  for (const v1::WorkloadModel& m : all->models()) {
    listed.push_back(absl::StrCat(m.instances(), ":", m.device_id()));
  }
  EXPECT_THAT(listed, ::testing::UnorderedElementsAre(
                          "pooled:", "device:xa-0", "device:xa-1",
                          "device:xa-2"));
  v1::ListModelsRequest of_xa1;
  of_xa1.mutable_selector()->set_device_id("xa-1");
  auto one = service_.ListModels(of_xa1);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->models_size(), 1);
  EXPECT_EQ(one->models(0).device_id(), "xa-1");
}

TEST(InstancesParseTest, UnknownInstancesNameTheField) {
  EXPECT_EQ(*ParseInstances(""), Instances::kPooled);
  EXPECT_EQ(*ParseInstances("per-device"), Instances::kPerDevice);
  absl::StatusOr<Instances> bad = ParseInstances("each");
  EXPECT_THAT(bad.status().message(),
              HasSubstr("instances: expected pooled, offsets or per_device"));
}

TEST(InstancesParseTest, OffsetsWithoutAnyStoredIsAClearRefusal) {
  auto groups = InstanceGroups({}, Instances::kOffsets, {});
  EXPECT_EQ(groups.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(groups.status().message(), HasSubstr("--save-offsets"));
}

}  // namespace
}  // namespace powersweep::modeling
