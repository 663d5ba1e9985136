// A device-instance variability study end to end: a real controller and
// four xavier-agx twin agents (different seeds; one started 15% slow) run
// an every_device sweep; `Variability` reports a between-device spread
// larger than the within-device one and finds the slow twin as the outlier;
// its offsets are saved; a sweep over eight modes is fitted pooled and with
// the offsets, and `Predict --device` for the slow twin then misses its
// measured epoch time by less than the pooled class model misses the
// nominal twins.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "powersweep/v1/modeling.pb.h"
#include "tests/integration/local_fleet.h"

namespace powersweep::testing {
namespace {

constexpr char kSlow[] = "xavier-agx-twin-3";
constexpr char kModes[][16] = {"sigmetrics-a", "sigmetrics-b", "sigmetrics-c",
                               "sigmetrics-d", "sigmetrics-e", "sigmetrics-f",
                               "sigmetrics-g", "sigmetrics-h"};

v1::SweepSpec Study(const std::string& name, int repetitions,
                    const std::vector<std::string>& presets) {
  v1::SweepSpec s;
  s.set_name(name);
  s.add_device_classes("xavier-agx");
  s.set_placement(v1::PLACEMENT_EVERY_DEVICE);
  s.mutable_settle()->set_temp_band_c(2);
  s.add_models("lenet5");
  s.add_datasets("fashion-mnist");
  s.add_tasks(v1::TASK_TRAIN);
  s.add_batch_sizes(64);
  s.add_loader_workers(1);
  for (const std::string& p : presets) s.add_power_modes()->set_preset(p);
  s.add_runtimes(v1::RUNTIME_NATIVE);
  s.set_repetitions(repetitions);
  s.set_minibatches(300);
  s.set_seed(5);
  s.set_telemetry_hz(20);
  s.set_timeout_s(120);
  return s;
}

bool Finished(LocalFleet& fleet, int64_t sweep) {
  return LocalFleet::WaitFor([&] { return fleet.GetSweep(sweep).finished(); },
                             120);
}

double Ape(double got, double truth) {
  return 100 * std::abs(got - truth) / truth;
}

TEST(VariabilityStudyTest, FindsTheSlowTwinAndItsOffsetsCorrectItsPredictions) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  for (int i = 0; i < 4; ++i) {
    const std::string id = "xavier-agx-twin-" + std::to_string(i);
    fleet.StartAgent(id, {"--platform=twin", "--device_class=xavier-agx",
                          "--instance=" + std::to_string(i),
                          "--twin_seed=" + std::to_string(11 + i),
                          "--twin_time_scale=0.01",
                          std::string("--twin_slowdown=") +
                              (id == kSlow ? "1.15" : "1"),
                          "--log_level=warning"});
  }
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        int n = 0;
        for (const v1::DeviceStatus& d : fleet.ListDevices()) n += d.connected();
        return n == 4;
      },
      30))
      << fleet.Logs();

  // 1. Same workload and mode on every twin, four times.
  std::string error;
  const int64_t study = fleet.Submit(Study("instances", 4, {"MAXN"}), &error);
  ASSERT_GT(study, 0) << error;
  ASSERT_TRUE(Finished(fleet, study)) << fleet.Logs();
  std::map<std::string, int> per_device;
  for (const v1::RunStatus& r : fleet.ListRuns(study)) {
    EXPECT_EQ(r.state(), v1::RUN_STATE_DONE) << r.reason();
    ASSERT_EQ(r.spec().devices_size(), 1);
    EXPECT_EQ(r.device_id(), r.spec().devices(0));  // placed where asked
    ++per_device[r.device_id()];
    // Every run records the board it ran on and how it started.
    EXPECT_TRUE(r.has_summary());
  }
  EXPECT_EQ(per_device.size(), 4u);
  for (const auto& [device, n] : per_device) EXPECT_EQ(n, 4) << device;

  v1::VariabilityRequest vreq;
  vreq.set_sweep_id(study);
  vreq.set_metric("minibatch_time");
  vreq.set_save_offsets(true);
  v1::VariabilityResponse vresp;
  grpc::ClientContext vctx;
  ASSERT_TRUE(fleet.control()->Variability(&vctx, vreq, &vresp).ok());
  ASSERT_EQ(vresp.cells_size(), 1);
  ASSERT_EQ(vresp.cells(0).metrics_size(), 1);
  const v1::VariabilityMetricReport& time = vresp.cells(0).metrics(0);
  EXPECT_GT(time.across().sd_between(), time.across().sd_within());
  EXPECT_LT(time.across().p_value(), 0.01);
  EXPECT_THAT(time.across().outlier_devices(), ::testing::ElementsAre(kSlow));
  for (const v1::VariabilityDeviceStats& d : time.devices()) {
    EXPECT_EQ(d.n(), 4) << d.device_id();
    EXPECT_TRUE(d.has_start_temp()) << d.device_id();  // the twin's sensor
  }
  // Offsets saved: the slow twin's time factor well above the others'.
  std::map<std::string, double> time_factor;
  for (const v1::DeviceOffset& o : vresp.saved_offsets()) {
    if (o.metric() == "time") time_factor[o.device_id()] = o.factor();
  }
  ASSERT_EQ(time_factor.size(), 4u);
  EXPECT_GT(time_factor[kSlow], 1.08);

  // 2. Eight modes on every twin; fit pooled and with the offsets.
  const int64_t modes_sweep = fleet.Submit(
      Study("modes", 1, std::vector<std::string>(std::begin(kModes),
                                                 std::end(kModes))),
      &error);
  ASSERT_GT(modes_sweep, 0) << error;
  ASSERT_TRUE(Finished(fleet, modes_sweep)) << fleet.Logs();
  // Measured epoch time per (mode, device): mean minibatch time x 937.
  std::map<std::pair<std::string, std::string>, double> measured;
  for (const v1::RunStatus& r : fleet.ListRuns(modes_sweep)) {
    ASSERT_EQ(r.state(), v1::RUN_STATE_DONE) << r.reason();
    measured[{r.spec().power_mode().preset(), r.device_id()}] =
        r.summary().mean_minibatch_s() * 937;
  }
  auto predict = [&](const std::string& preset, const std::string& device,
                     std::string* basis) {
    v1::PredictRequest req;
    req.mutable_selector()->set_device_class("xavier-agx");
    req.mutable_selector()->set_model("lenet5");
    req.mutable_selector()->set_sweep_id(modes_sweep);
    req.set_device_id(device);
    req.add_modes()->set_preset(preset);
    v1::PredictResponse resp;
    grpc::ClientContext ctx;
    grpc::Status st = fleet.control()->Predict(&ctx, req, &resp);
    EXPECT_TRUE(st.ok()) << st.error_message();
    if (basis != nullptr) *basis = resp.basis();
    return st.ok() ? resp.predictions(0).epoch_time_s() : 0.0;
  };
  auto fit = [&](const std::string& instances) {
    v1::FitModelsRequest req;
    req.set_sweep_id(modes_sweep);
    req.set_instances(instances);
    v1::FitModelsResponse resp;
    grpc::ClientContext ctx;
    grpc::Status st = fleet.control()->FitModels(&ctx, req, &resp);
    ASSERT_TRUE(st.ok()) << st.error_message();
    ASSERT_EQ(resp.models_size(), 1);
    EXPECT_EQ(resp.models(0).instances(), instances);
  };
  fit("pooled");
  // The class's error: the pooled model against the nominal twins; and
  // against the slow twin, which it misses.
  double class_error = 0, slow_pooled_error = 0;
  int n = 0;
  for (const char* preset : kModes) {
    const double p = predict(preset, "", nullptr);
    for (int i = 0; i < 3; ++i) {
      class_error +=
          Ape(p, measured[{preset, "xavier-agx-twin-" + std::to_string(i)}]);
      ++n;
    }
    slow_pooled_error += Ape(p, measured[{preset, kSlow}]);
  }
  class_error /= n;
  slow_pooled_error /= std::size(kModes);
  fit("offsets");
  double slow_error = 0;
  std::string basis;
  for (const char* preset : kModes) {
    slow_error += Ape(predict(preset, kSlow, &basis), measured[{preset, kSlow}]);
  }
  slow_error /= std::size(kModes);
  std::printf(
      "mean epoch-time error: class model on nominal twins %.2f%%, on %s "
      "%.2f%%; offsets model with --device %s %.2f%%\n",
      class_error, kSlow, slow_pooled_error, kSlow, slow_error);
  EXPECT_GT(slow_pooled_error, class_error);
  EXPECT_LT(slow_error, class_error);
  EXPECT_THAT(basis, ::testing::HasSubstr("calibration offsets of " +
                                         std::string(kSlow) + " applied"));
}

}  // namespace
}  // namespace powersweep::testing
