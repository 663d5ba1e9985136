// Store conformance: fitted models, saved under a new id, read back whole,
// listed oldest first.
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::WorkloadModel MakeModel(int64_t sweep_id, int32_t batch, bool energy) {
  v1::WorkloadModel m;
  m.set_model_id(999);  // ignored by SaveModel
  m.set_sweep_id(sweep_id);
  m.set_device_class("xavier-agx");
  m.set_model("lenet5");
  m.set_dataset("fashion-mnist");
  m.set_task(v1::TASK_TRAIN);
  m.set_batch_size(batch);
  m.set_loader_workers(0);
  m.set_runtime(v1::RUNTIME_NATIVE);
  m.set_tenants(1);
  m.set_fitted_unix_ms(1'700'000'000'123);
  for (int64_t id : {3, 4, 5}) m.add_run_ids(id);
  v1::FittedModelData* t = m.mutable_time_model();
  t->set_target("time");
  t->set_form("reciprocal");
  t->add_parameter_names("1/cpu_ghz");
  t->add_parameter_names("const");
  t->add_coefficients(1.0 / 3.0);
  t->add_coefficients(0.125);
  t->set_cv_mape_pct(2.5);
  t->add_training_modes()->set_cpu_cores(8);
  if (energy) {
    m.mutable_energy_model()->set_target("energy");
    m.mutable_energy_model()->set_form("power_x_time");
    m.mutable_energy_model()->set_cv_mape_pct(4.25);
    m.set_energy_provenance(v1::PROVENANCE_SIMULATED);
  }
  m.set_data_provenance("times simulated; energy simulated");
  m.add_device_ids("xavier-0");
  m.add_notes("run 6 left out: no energy");
  return m;
}

template <typename Factory>
class StoreModelsTest : public StoreConformanceTest<Factory> {
 protected:
  void SetUp() override {
    StoreConformanceTest<Factory>::SetUp();
    sweep_id_ = this->AddSweep(MakeRuns(1), "models");
  }
  int64_t sweep_id_ = 0;
};
TYPED_TEST_SUITE(StoreModelsTest, StoreImplementations,
                 StoreImplementationNames);

TYPED_TEST(StoreModelsTest, SavedModelComesBackWholeWithItsNewId) {
  Store& store = *this->store_;
  const v1::WorkloadModel model =
      MakeModel(this->sweep_id_, 64, /*energy=*/true);
  auto id = store.SaveModel(model);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_GT(*id, 0);
  EXPECT_NE(*id, 999);

  auto back = store.GetModel(*id);
  ASSERT_TRUE(back.ok()) << back.status();
  v1::WorkloadModel expected = model;
  expected.set_model_id(*id);
  EXPECT_TRUE(MessageDifferencer::Equals(*back, expected))
      << back->DebugString();
  // Doubles survive exactly (1/3 has no short decimal form).
  EXPECT_EQ(back->time_model().coefficients(0), 1.0 / 3.0);
}

TYPED_TEST(StoreModelsTest, ListIsOldestFirstWithTheIds) {
  Store& store = *this->store_;
  EXPECT_THAT(*store.ListModels(), IsEmpty());
  auto a = store.SaveModel(MakeModel(this->sweep_id_, 32, true));
  auto b = store.SaveModel(MakeModel(this->sweep_id_, 64, false));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(*a, *b);
  auto list = store.ListModels();
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].model_id(), *a);
  EXPECT_EQ((*list)[0].batch_size(), 32);
  EXPECT_TRUE((*list)[0].has_energy_model());
  EXPECT_EQ((*list)[1].model_id(), *b);
  EXPECT_FALSE((*list)[1].has_energy_model());
  EXPECT_TRUE(MessageDifferencer::Equals((*list)[1], *store.GetModel(*b)));
}

TYPED_TEST(StoreModelsTest, UnknownSweepAndUnknownModelAreNotFound) {
  Store& store = *this->store_;
  auto id = store.SaveModel(MakeModel(this->sweep_id_ + 41, 64, true));
  EXPECT_TRUE(absl::IsNotFound(id.status())) << id.status();
  EXPECT_THAT(id.status().message(), HasSubstr("sweep"));
  auto list = store.ListModels();
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->empty());  // nothing half-stored
  auto missing = store.GetModel(12345);
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_THAT(missing.status().message(), HasSubstr("model 12345"));
  // The refused save used no id.
  auto first = store.SaveModel(MakeModel(this->sweep_id_, 64, true));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, 1);
}

TYPED_TEST(StoreModelsTest, ModelWithoutClassOrWorkloadIsRefused) {
  Store& store = *this->store_;
  v1::WorkloadModel no_class = MakeModel(this->sweep_id_, 64, true);
  no_class.clear_device_class();
  EXPECT_EQ(store.SaveModel(no_class).status().code(),
            absl::StatusCode::kInvalidArgument);
  v1::WorkloadModel no_model = MakeModel(this->sweep_id_, 64, true);
  no_model.clear_model();
  EXPECT_EQ(store.SaveModel(no_model).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Checked before the sweep.
  no_model.set_sweep_id(this->sweep_id_ + 41);
  EXPECT_EQ(store.SaveModel(no_model).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(*store.ListModels(), IsEmpty());
}

}  // namespace
}  // namespace powersweep
