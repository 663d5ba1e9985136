// Helpers shared by the sweep validation tests: a sweep that passes, a
// registered device, a context in which every class has a device, and the
// problem lines ValidateSweep reports. Test-only; no shared state.
#ifndef POWERSWEEP_TESTS_CONTROLLER_SWEEP_VALIDATE_TEST_UTIL_H_
#define POWERSWEEP_TESTS_CONTROLLER_SWEEP_VALIDATE_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/model_names.h"
#include "controller/sweep/validate.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace testing_util {

// A sweep that passes, to which each test adds one mistake.
inline v1::SweepSpec GoodSpec() {
  v1::SweepSpec s;
  s.set_name("good");
  s.add_device_classes("orin-agx");
  s.add_models("lenet5");
  s.add_datasets("fashion-mnist");
  s.add_batch_sizes(32);
  s.set_epochs(1);
  return WithDefaults(s);
}

inline v1::DeviceStatus Device(const std::string& id, const std::string& cls,
                               int cores, std::vector<v1::Runtime> runtimes) {
  v1::DeviceStatus d;
  d.mutable_identity()->set_device_id(id);
  d.mutable_identity()->set_device_class(cls);
  d.mutable_capabilities()->set_cpu_cores(cores);
  for (v1::Runtime r : runtimes) d.mutable_capabilities()->add_runtimes(r);
  // What every agent offers (agent/run/catalog.h), so no "not served"
  // warning unless a test wants one.
  for (const char* m : kModelNames) {
    d.mutable_capabilities()->add_models(m);
  }
  for (const char* set : {"catch-frames", "cifar10", "fashion-mnist",
                          "gld23k", "imagenet", "mnist", "synthetic"}) {
    d.mutable_capabilities()->add_datasets(set);
  }
  return d;
}

// Context in which the sweep's classes are all registered, so no warnings.
inline ValidationContext Ctx() {
  ValidationContext ctx;
  for (const char* cls : {"orin-agx", "xavier-agx", "xavier-nx", "nano"}) {
    ctx.known_devices.push_back(
        Device(std::string(cls) + "-0", cls, 0, {v1::RUNTIME_NATIVE}));
  }
  ctx.known_devices.push_back(
      Device("host-0", "host", 8, {v1::RUNTIME_NATIVE}));
  return ctx;
}

// The problem lines ValidateSweep reports (empty when it accepts).
inline std::vector<std::string> Problems(
    const v1::SweepSpec& spec, const ValidationContext& ctx = Ctx(),
    std::vector<std::string>* warnings = nullptr) {
  absl::Status s = ValidateSweep(spec, ctx, warnings);
  if (s.ok()) return {};
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  return absl::StrSplit(s.message(), '\n');
}

}  // namespace testing_util
}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_CONTROLLER_SWEEP_VALIDATE_TEST_UTIL_H_
