// Transfer to a new workload end to end on twins (issue 24, PowerTrain's
// job): a real controller and two Xavier AGX twin agents; a reference
// workload (ResNet-18 on CIFAR-10) profiled at 30 random modes and
// fitted; a new workload (LeNet-5) profiled at the 5 modes `plan-profiling
// --modes 5` proposes, too few for a plain fit, which `powersweep fit
// --reference-model M` fits from the reference; 20 other modes of the new
// workload, run as a third sweep, are the truth its predictions
// (Control.Predict) are compared with: median APE <= 10% for epoch time
// (the goal) and <= 20% for energy (the goal of 10% is met by the
// transfer bench's median, not by every profile; README). The CLI's
// outputs are printed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "common/power/power_catalog.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/subprocess.h"

namespace powersweep::testing {
namespace {

constexpr char kClass[] = "xavier-agx";
constexpr int kMinibatches = 100;

Finished RunCli(const LocalFleet& fleet, const std::vector<std::string>& args) {
  static int n = 0;
  std::vector<std::string> argv = {POWERSWEEP_CLI_BIN,
                                   "--controller=" + fleet.address()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunToEnd(argv, fleet.dir() + "/cli-" + std::to_string(++n) + ".log");
}

v1::SweepSpec SweepOf(const std::string& name, const std::string& model,
                      const std::string& dataset,
                      const std::vector<CustomMode>& modes) {
  v1::SweepSpec spec;
  spec.set_name(name);
  spec.add_device_classes(kClass);
  spec.add_models(model);
  spec.add_datasets(dataset);
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_batch_sizes(32);
  spec.add_loader_workers(0);
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  for (const CustomMode& m : modes) {
    v1::PowerMode* p = spec.add_power_modes();
    p->set_cpu_cores(m.cpu_cores);
    p->set_cpu_freq_khz(m.cpu_freq_khz);
    p->set_gpu_freq_hz(m.gpu_freq_hz);
    p->set_mem_freq_hz(m.mem_freq_hz);
  }
  spec.set_repetitions(1);
  spec.set_minibatches(kMinibatches);
  spec.set_seed(3);
  spec.set_telemetry_hz(10);
  return spec;
}

// Submits and waits; the sweep id, 0 after a failed assertion.
int64_t RunSweep(LocalFleet& fleet, const v1::SweepSpec& spec) {
  std::string error;
  const int64_t id = fleet.Submit(spec, &error);
  EXPECT_GT(id, 0) << error;
  if (id <= 0) return 0;
  EXPECT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(id).finished(); }, 120))
      << fleet.Logs();
  return id;
}

int64_t FirstModelId(const std::string& fit_output) {
  const size_t at = fit_output.find("model ");
  return at == std::string::npos ? 0
                                 : std::atoll(fit_output.c_str() + at + 6);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

TEST(TransferTwinTest, FiveModesOfANewWorkloadArePredictedFromAReference) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  for (int i = 0; i < 2; ++i) {
    fleet.StartAgent(
        std::string(kClass) + "-twin-" + std::to_string(i),
        {"--platform=twin", std::string("--device_class=") + kClass,
         "--instance=" + std::to_string(i), "--twin_seed=1",
         "--twin_time_scale=0", "--log_level=warning"});
  }
  ASSERT_TRUE(fleet.WaitConnected(2)) << fleet.Logs();
  const ModeSpace space = *PowerCatalog::Default().Space(kClass);
  std::set<int64_t> used;
  uint64_t x = 0x2545f4914f6cdd1dull;
  auto draw = [&](int count) {
    std::vector<CustomMode> out;
    while (static_cast<int>(out.size()) < count) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      const int64_t i =
          static_cast<int64_t>(x % static_cast<uint64_t>(space.Size()));
      if (used.insert(i).second) out.push_back(*space.At(i));
    }
    return out;
  };

  // 1. The reference's full profile, fitted plainly.
  const int64_t ref_sweep =
      RunSweep(fleet, SweepOf("it-ref", "resnet18", "cifar10", draw(30)));
  ASSERT_GT(ref_sweep, 0);
  Finished ref_fit = RunCli(fleet, {"fit", "--sweep", std::to_string(ref_sweep)});
  ASSERT_EQ(ref_fit.exit_code, 0) << ref_fit.output;
  const int64_t ref_model = FirstModelId(ref_fit.output);
  ASSERT_GT(ref_model, 0) << ref_fit.output;

  // 2. The new workload at the 5 modes plan-profiling proposes: a plain
  // fit is refused, transfer fits.
  const std::string plan_file = fleet.dir() + "/plan.yaml";
  Finished plan = RunCli(
      fleet, {"plan-profiling", "--device-class", kClass, "--modes", "5",
              "--workload", "lenet5", "--batch-size", "32", "--minibatches",
              std::to_string(kMinibatches), "--out", plan_file});
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  Finished submit = RunCli(fleet, {"--quiet", "submit", plan_file});
  ASSERT_EQ(submit.exit_code, 0) << submit.output;
  const int64_t new_sweep = std::atoll(submit.output.c_str());
  ASSERT_GT(new_sweep, 0) << submit.output;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(new_sweep).finished(); }, 120))
      << fleet.Logs();
  for (const v1::RunStatus& r : fleet.ListRuns(new_sweep)) {
    auto index = space.IndexOf(CustomMode{
        r.spec().power_mode().cpu_cores(), r.spec().power_mode().cpu_freq_khz(),
        r.spec().power_mode().gpu_freq_hz(),
        r.spec().power_mode().mem_freq_hz()});
    if (index.ok()) used.insert(*index);
  }
  Finished plain = RunCli(fleet, {"fit", "--sweep", std::to_string(new_sweep)});
  std::printf("$ powersweep fit --sweep %lld\n%s\n",
              static_cast<long long>(new_sweep), plain.output.c_str());
  EXPECT_NE(plain.exit_code, 0);
  EXPECT_NE(plain.output.find("distinct modes"), std::string::npos);
  Finished fit = RunCli(fleet, {"fit", "--sweep", std::to_string(new_sweep),
                                "--reference-model", std::to_string(ref_model)});
  std::printf("$ powersweep fit --sweep %lld --reference-model %lld\n%s\n",
              static_cast<long long>(new_sweep),
              static_cast<long long>(ref_model), fit.output.c_str());
  ASSERT_EQ(fit.exit_code, 0) << fit.output << fleet.Logs();
  EXPECT_NE(fit.output.find("reference: model " + std::to_string(ref_model)),
            std::string::npos);
  EXPECT_NE(fit.output.find("time: transferred from model " +
                            std::to_string(ref_model)),
            std::string::npos);
  EXPECT_NE(fit.output.find("90% intervals held"), std::string::npos);
  Finished missing = RunCli(fleet, {"fit", "--sweep", std::to_string(new_sweep),
                                    "--reference-model", "999"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("reference_model_id"), std::string::npos)
      << missing.output;

  // 3. 20 other modes of the new workload are the truth.
  const std::vector<CustomMode> eval = draw(20);
  const int64_t eval_sweep =
      RunSweep(fleet, SweepOf("it-eval", "lenet5", "fashion-mnist", eval));
  ASSERT_GT(eval_sweep, 0);
  v1::PredictRequest predict;
  predict.mutable_selector()->set_model_id(FirstModelId(fit.output));
  for (const v1::RunStatus& r : fleet.ListRuns(eval_sweep)) {
    *predict.add_modes() = r.spec().power_mode();
  }
  v1::PredictResponse predicted;
  {
    grpc::ClientContext ctx;
    grpc::Status st = fleet.control()->Predict(&ctx, predict, &predicted);
    ASSERT_TRUE(st.ok()) << st.error_message();
  }
  const std::vector<v1::RunStatus> runs = fleet.ListRuns(eval_sweep);
  ASSERT_EQ(predicted.predictions_size(), static_cast<int>(runs.size()));
  const double per_epoch = 60000 / 32;
  std::vector<double> time_ape, energy_ape;
  for (size_t i = 0; i < runs.size(); ++i) {
    const v1::RunSummary& s = runs[i].summary();
    ASSERT_EQ(runs[i].state(), v1::RUN_STATE_DONE) << runs[i].reason();
    const double time = s.mean_minibatch_s() * per_epoch;
    const double energy = (s.energy_stall_j() + s.energy_compute_j()) /
                          static_cast<double>(s.minibatches()) * per_epoch;
    const v1::ModePrediction& p = predicted.predictions(static_cast<int>(i));
    time_ape.push_back(100 * std::abs(p.epoch_time_s() / time - 1));
    energy_ape.push_back(100 * std::abs(p.epoch_energy_j() / energy - 1));
  }
  std::printf("RESULT transfer resnet18 (30 modes) -> lenet5 (5 modes), %zu "
              "held-out modes: median APE time %.2f%%, energy %.2f%%\n",
              runs.size(), Median(time_ape), Median(energy_ape));
  EXPECT_LE(Median(time_ape), 10.0);
  EXPECT_LE(Median(energy_ape), 20.0);
}

}  // namespace
}  // namespace powersweep::testing
