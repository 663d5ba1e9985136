// Choosing the stored model a query uses: by id, or the latest fit of the
// one workload a selector matches; an ambiguous selector lists the
// workloads it matches.
#include "controller/modeling/model_selector.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep::modeling {
namespace {

using ::testing::HasSubstr;

v1::WorkloadModel Model(int64_t id, const std::string& cls, int32_t batch,
                        int64_t fitted_ms, int32_t workers = 0) {
  v1::WorkloadModel m;
  m.set_model_id(id);
  m.set_sweep_id(id * 10);
  m.set_device_class(cls);
  m.set_model("lenet5");
  m.set_dataset("fashion-mnist");
  m.set_task(v1::TASK_TRAIN);
  m.set_batch_size(batch);
  m.set_loader_workers(workers);
  m.set_runtime(v1::RUNTIME_NATIVE);
  m.set_tenants(1);
  m.set_fitted_unix_ms(fitted_ms);
  return m;
}

v1::ModelSelector Sel(const std::string& cls, const std::string& model) {
  v1::ModelSelector s;
  s.set_device_class(cls);
  s.set_model(model);
  return s;
}

TEST(ModelSelectorTest, LatestFitOfTheMatchingWorkloadWins) {
  const std::vector<v1::WorkloadModel> models = {
      Model(1, "xavier-agx", 64, 1000), Model(2, "xavier-agx", 64, 3000),
      Model(3, "xavier-agx", 64, 2000), Model(4, "orin-agx", 64, 9000)};
  auto m = SelectModel(models, Sel("xavier-agx", "lenet5"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->model_id(), 2);
}

TEST(ModelSelectorTest, SameFitTimeFallsBackToTheHigherId) {
  const std::vector<v1::WorkloadModel> models = {
      Model(5, "xavier-agx", 64, 1000), Model(6, "xavier-agx", 64, 1000)};
  EXPECT_EQ(SelectModel(models, Sel("xavier-agx", "lenet5"))->model_id(), 6);
}

TEST(ModelSelectorTest, AmbiguousSelectorListsTheWorkloads) {
  const std::vector<v1::WorkloadModel> models = {
      Model(1, "xavier-agx", 64, 1000), Model(2, "xavier-agx", 128, 2000),
      Model(3, "xavier-agx", 128, 3000)};
  auto m = SelectModel(models, Sel("xavier-agx", "lenet5"));
  ASSERT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("2 workloads"));
  EXPECT_THAT(m.status().message(),
              HasSubstr("model 1: lenet5 fashion-mnist train batch 64"));
  EXPECT_THAT(m.status().message(),
              HasSubstr("model 3: lenet5 fashion-mnist train batch 128"));
  // Naming the batch size resolves it.
  v1::ModelSelector s = Sel("xavier-agx", "lenet5");
  s.set_batch_size(128);
  EXPECT_EQ(SelectModel(models, s)->model_id(), 3);
}

TEST(ModelSelectorTest, LoaderWorkersZeroIsAValueWhenGiven) {
  const std::vector<v1::WorkloadModel> models = {
      Model(1, "xavier-agx", 64, 1000, /*workers=*/0),
      Model(2, "xavier-agx", 64, 2000, /*workers=*/2)};
  v1::ModelSelector s = Sel("xavier-agx", "lenet5");
  EXPECT_FALSE(SelectModel(models, s).ok());  // ambiguous
  s.set_loader_workers(0);
  EXPECT_EQ(SelectModel(models, s)->model_id(), 1);
}

TEST(ModelSelectorTest, NothingMatchingIsNotFoundSayingHowToFit) {
  const std::vector<v1::WorkloadModel> models = {Model(1, "xavier-agx", 64, 1)};
  auto m = SelectModel(models, Sel("nano", "lenet5"));
  ASSERT_TRUE(absl::IsNotFound(m.status()));
  EXPECT_THAT(
      m.status().message(),
      HasSubstr("no fitted model matches device_class=nano model=lenet5"));
  EXPECT_THAT(m.status().message(), HasSubstr("powersweep fit --sweep"));
}

TEST(ModelSelectorTest, ModelIdPicksThatModelAndMustAgreeWithOtherFields) {
  const std::vector<v1::WorkloadModel> models = {
      Model(1, "xavier-agx", 64, 1000), Model(2, "xavier-agx", 64, 3000)};
  v1::ModelSelector s;
  s.set_model_id(1);
  EXPECT_EQ(SelectModel(models, s)->model_id(), 1);  // not the latest
  s.set_device_class("orin-agx");
  EXPECT_EQ(SelectModel(models, s).status().code(),
            absl::StatusCode::kInvalidArgument);
  s.set_model_id(9);
  s.clear_device_class();
  EXPECT_TRUE(absl::IsNotFound(SelectModel(models, s).status()));
}

TEST(ModelSelectorTest, SelectorText) {
  v1::ModelSelector s = Sel("xavier-agx", "lenet5");
  s.set_batch_size(64);
  s.set_task(v1::TASK_INFER);
  EXPECT_EQ(SelectorText(s),
            "device_class=xavier-agx model=lenet5 task=infer batch_size=64");
  EXPECT_EQ(SelectorText(v1::ModelSelector()), "any model");
}

}  // namespace
}  // namespace powersweep::modeling
