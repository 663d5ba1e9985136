// The store's pending-run query (Store::ListPendingRunsFor with a device's
// DispatchProfile) picks exactly the runs CanServe says the device serves,
// oldest first: the dispatch rule and its SQL form cannot drift apart.
#include <string>
#include <vector>

#include "controller/core/registry.h"
#include "controller/core/scheduler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using PendingFilterTest = FleetTest;

TEST_F(PendingFilterTest, TheQueryServesWhatCanServeServes) {
  std::vector<v1::RunSpec> specs;
  auto add = [&](auto change) {
    v1::RunSpec spec = HostRun(2);
    change(&spec);
    specs.push_back(spec);
  };
  add([](v1::RunSpec*) {});                                          // served
  add([](v1::RunSpec* s) { s->set_device_class("orin-agx"); });      // class
  add([](v1::RunSpec* s) { s->set_runtime(v1::RUNTIME_CONTAINER); });  // runtime
  add([](v1::RunSpec* s) { s->mutable_workload()->set_model("vgg11"); });
  add([](v1::RunSpec* s) { s->mutable_workload()->set_dataset("cifar10"); });
  add([](v1::RunSpec* s) { s->mutable_power_mode()->set_cpu_cores(8); });
  add([](v1::RunSpec* s) {  // baseload: no model or dataset needed
    s->mutable_workload()->set_task(v1::TASK_BASELOAD);
    s->mutable_workload()->set_model("");
    s->mutable_workload()->set_dataset("");
  });
  add([](v1::RunSpec* s) { s->mutable_power_mode()->set_cpu_cores(4); });  // served
  const std::vector<int64_t> ids = AddSweep(specs);

  v1::DeviceIdentity identity;
  identity.set_device_id("host-0");
  identity.set_device_class("host");
  const v1::DeviceCapabilities caps = HostCaps(4);
  std::vector<int64_t> expected;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (CanServe(identity, caps, specs[i])) expected.push_back(ids[i]);
  }
  ASSERT_EQ(expected.size(), 3u);

  auto got = store_->ListPendingRunsFor(
      MakeDispatchProfile(identity, caps)->filter, 100);
  ASSERT_TRUE(got.ok()) << got.status();
  std::vector<int64_t> got_ids;
  for (const v1::RunSpec& spec : *got) got_ids.push_back(spec.run_id());
  EXPECT_EQ(got_ids, expected);

  // `exclude` and the limit narrow it, oldest first.
  PendingFilter filter = MakeDispatchProfile(identity, caps)->filter;
  filter.exclude = {expected[0]};
  got = store_->ListPendingRunsFor(filter, 1);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].run_id(), expected[1]);
}

TEST_F(PendingFilterTest, AKernelRunIsServedOnAnyShapeOfAKernelOffered) {
  std::vector<v1::RunSpec> specs;
  for (const char* model_shape :
       {"gemm:deepbench-train-1", "gemm:m8-n8-k8", "rnn:gru-h8-b1-t2"}) {
    const std::string text = model_shape;
    v1::RunSpec spec = HostRun(2);
    spec.mutable_workload()->set_model(text.substr(0, text.find(':')));
    spec.mutable_workload()->set_dataset(text.substr(text.find(':') + 1));
    specs.push_back(spec);
  }
  const std::vector<int64_t> ids = AddSweep(specs);
  v1::DeviceIdentity identity;
  identity.set_device_id("host-0");
  identity.set_device_class("host");
  v1::DeviceCapabilities caps = HostCaps(4);
  caps.add_models("gemm");  // not rnn
  std::vector<int64_t> expected;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (CanServe(identity, caps, specs[i])) expected.push_back(ids[i]);
  }
  EXPECT_EQ(expected, (std::vector<int64_t>{ids[0], ids[1]}));
  auto got = store_->ListPendingRunsFor(
      MakeDispatchProfile(identity, caps)->filter, 100);
  ASSERT_TRUE(got.ok()) << got.status();
  std::vector<int64_t> got_ids;
  for (const v1::RunSpec& spec : *got) got_ids.push_back(spec.run_id());
  EXPECT_EQ(got_ids, expected);
}

}  // namespace
}  // namespace powersweep
