// SqliteStore: fitted models (schema version 5) are readable with plain
// SQL through the selector columns and survive reopening the file. The
// Store contract of models is in store_conformance_models_test.cc.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/migrations.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

v1::WorkloadModel MakeModel(int64_t sweep_id, int32_t batch, bool energy) {
  v1::WorkloadModel m;
  m.set_sweep_id(sweep_id);
  m.set_device_class("xavier-agx");
  m.set_model("lenet5");
  m.set_dataset("fashion-mnist");
  m.set_task(v1::TASK_TRAIN);
  m.set_batch_size(batch);
  m.set_runtime(v1::RUNTIME_NATIVE);
  m.set_tenants(1);
  m.set_fitted_unix_ms(1'700'000'000'123);
  for (int64_t id : {3, 4, 5}) m.add_run_ids(id);
  m.mutable_time_model()->set_form("reciprocal");
  m.mutable_time_model()->set_cv_mape_pct(2.5);
  if (energy) {
    m.mutable_energy_model()->set_form("power_x_time");
    m.mutable_energy_model()->set_cv_mape_pct(4.25);
    m.set_energy_provenance(v1::PROVENANCE_SIMULATED);
  }
  return m;
}

class SqliteModelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
    auto sweep =
        store_->CreateSweep(MakeSpec("models"), MakeRuns(1), clock_.Now());
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    sweep_id_ = *sweep;
  }

  TempDir dir_;
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  int64_t sweep_id_ = 0;
};

TEST_F(SqliteModelsTest, ModelsSurviveReopening) {
  auto a = store_->SaveModel(MakeModel(sweep_id_, 32, true));
  auto b = store_->SaveModel(MakeModel(sweep_id_, 64, false));
  ASSERT_TRUE(a.ok() && b.ok());
  store_.reset();
  store_ = OpenStore(path_);
  ASSERT_NE(store_, nullptr);
  auto list = store_->ListModels();
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].model_id(), *a);
  EXPECT_EQ((*list)[0].batch_size(), 32);
  EXPECT_EQ((*list)[1].model_id(), *b);
  EXPECT_FALSE((*list)[1].has_energy_model());
}

TEST_F(SqliteModelsTest, SelectorColumnsAreReadableWithSql) {
  auto with = store_->SaveModel(MakeModel(sweep_id_, 64, true));
  auto without = store_->SaveModel(MakeModel(sweep_id_, 128, false));
  ASSERT_TRUE(with.ok() && without.ok());
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT MAX(version) FROM schema_migrations"),
            static_cast<int64_t>(Migrations().size()));
  EXPECT_GE(Migrations().size(), 5u);
  const std::string where =
      absl::StrCat(" FROM models WHERE model_id = ", *with);
  EXPECT_EQ(raw.Text("SELECT device_class" + where), "xavier-agx");
  EXPECT_EQ(raw.Text("SELECT model || ' ' || dataset || ' ' || task || ' ' || "
                     "runtime" +
                     where),
            "lenet5 fashion-mnist train native");
  EXPECT_EQ(raw.Int("SELECT batch_size" + where), 64);
  EXPECT_EQ(raw.Int("SELECT runs" + where), 3);
  EXPECT_EQ(raw.Text("SELECT time_form" + where), "reciprocal");
  EXPECT_EQ(raw.Text("SELECT energy_form || ' ' || energy_provenance" + where),
            "power_x_time simulated");
  EXPECT_EQ(raw.Int("SELECT fitted_unix_ms" + where), 1'700'000'000'123);
  EXPECT_EQ(raw.Int(absl::StrCat("SELECT energy_form IS NULL AND "
                                 "energy_cv_mape_pct IS NULL FROM models WHERE "
                                 "model_id = ",
                                 *without)),
            1);
  EXPECT_THAT(raw.Text("SELECT model_json" + where),
              HasSubstr("\"form\":\"reciprocal\""));
  EXPECT_THAT(raw.Text("SELECT model_json" + where),
              ::testing::Not(HasSubstr("model_id")));
}

}  // namespace
}  // namespace powersweep
