#include "controller/core/scheduler.h"

#include <vector>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

v1::DeviceIdentity Host() {
  v1::DeviceIdentity id;
  id.set_device_id("host-0");
  id.set_device_class("host");
  return id;
}

v1::DeviceCapabilities Caps() {
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(4);
  caps.add_runtimes(v1::RUNTIME_NATIVE);
  caps.add_models("lenet5");
  caps.add_datasets("mnist");
  caps.add_datasets("fashion-mnist");
  return caps;
}

v1::RunSpec Spec(int cores) {
  v1::RunSpec spec;
  spec.set_device_class("host");
  spec.set_runtime(v1::RUNTIME_NATIVE);
  spec.mutable_workload()->set_model("lenet5");
  spec.mutable_workload()->set_dataset("fashion-mnist");
  spec.mutable_power_mode()->set_cpu_cores(cores);
  return spec;
}

TEST(CanServeTest, MatchingRunUpToAllCoresIsServed) {
  EXPECT_TRUE(CanServe(Host(), Caps(), Spec(4)));
  EXPECT_TRUE(CanServe(Host(), Caps(), Spec(0)));  // 0 = as the device is
}

TEST(CanServeTest, EachMismatchPreventsServing) {
  v1::RunSpec spec = Spec(5);
  EXPECT_FALSE(CanServe(Host(), Caps(), spec)) << "too many cores";
  spec = Spec(1);
  spec.set_device_class("orin-agx");
  EXPECT_FALSE(CanServe(Host(), Caps(), spec)) << "class";
  spec = Spec(1);
  spec.set_runtime(v1::RUNTIME_CONTAINER);
  EXPECT_FALSE(CanServe(Host(), Caps(), spec)) << "runtime";
  spec = Spec(1);
  spec.mutable_workload()->set_model("resnet18");
  EXPECT_FALSE(CanServe(Host(), Caps(), spec)) << "model";
  spec = Spec(1);
  spec.mutable_workload()->set_dataset("cifar10");
  EXPECT_FALSE(CanServe(Host(), Caps(), spec)) << "dataset";
}

TEST(CanServeTest, AKernelRunNeedsTheKernelButNoDataset) {
  v1::RunSpec spec = Spec(1);
  spec.mutable_workload()->set_model("gemm");
  spec.mutable_workload()->set_dataset("deepbench-train-1");  // a shape
  EXPECT_FALSE(CanServe(Host(), Caps(), spec)) << "the agent has no gemm";
  v1::DeviceCapabilities caps = Caps();
  caps.add_models("gemm");
  EXPECT_TRUE(CanServe(Host(), caps, spec));
}

TEST(CanServeTest, BaseloadRunNeedsNoModelOrDatasetButTheClassAndRuntime) {
  v1::RunSpec spec;
  spec.set_device_class("host");
  spec.set_runtime(v1::RUNTIME_NATIVE);
  spec.mutable_workload()->set_task(v1::TASK_BASELOAD);
  spec.mutable_workload()->set_duration_s(30);
  EXPECT_TRUE(CanServe(Host(), Caps(), spec));
  spec.mutable_power_mode()->set_cpu_cores(5);
  EXPECT_FALSE(CanServe(Host(), Caps(), spec));
  spec.mutable_power_mode()->set_cpu_cores(0);
  spec.set_device_class("orin-agx");
  EXPECT_FALSE(CanServe(Host(), Caps(), spec));
  spec.set_device_class("host");
  spec.set_runtime(v1::RUNTIME_CONTAINER);
  EXPECT_FALSE(CanServe(Host(), Caps(), spec));
}

}  // namespace
}  // namespace powersweep
