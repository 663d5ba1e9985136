// Time and energy models end to end on twin devices: a real controller and four Xavier
// AGX twin agents (distinct instances, so the fleet varies a few percent
// as real boards do). `powersweep plan-profiling --modes 8 --repetitions 4`
// writes a sweep file, `powersweep submit` queues it, `powersweep fit`
// fits and stores the models; then 50 other modes, run 4 times each as a
// second sweep on the same twins, are the truth (the fleet's mean per mode)
// the predictions (Control.Predict) are compared with: median
// absolute percentage error <= 5% for epoch time and <= 10% for epoch
// energy. `best --max-epoch-time` must pick a mode whose measured energy is
// within 5% of the best measured mode under the budget (the pick is run as
// a third sweep, once per twin). The figures and the CLI's outputs are
// printed; the wall time is printed, not asserted.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
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

constexpr int kAgents = 4;
constexpr int kProfiled = 8;
constexpr int kEvaluated = 50;
constexpr int kMinibatches = 200;
// Every mode is run this many times (repetitions spread over the sweep, so
// over the twins): its figures are the fleet's mean, not one instance's.
constexpr int kRepetitions = kAgents;
constexpr double kTrainMinibatchesPerEpoch = 937;  // 60000 / 64
constexpr char kClass[] = "xavier-agx";

Finished RunCli(const LocalFleet& fleet, const std::vector<std::string>& args) {
  static int n = 0;
  std::vector<std::string> argv = {POWERSWEEP_CLI_BIN,
                                   "--controller=" + fleet.address()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunToEnd(argv, fleet.dir() + "/cli-" + std::to_string(++n) + ".log");
}

bool WaitFinished(LocalFleet& fleet, int64_t sweep) {
  return LocalFleet::WaitFor([&] { return fleet.GetSweep(sweep).finished(); },
                             120);
}

v1::PowerMode Knobs(const CustomMode& m) {
  v1::PowerMode p;
  p.set_cpu_cores(m.cpu_cores);
  p.set_cpu_freq_khz(m.cpu_freq_khz);
  p.set_gpu_freq_hz(m.gpu_freq_hz);
  p.set_mem_freq_hz(m.mem_freq_hz);
  return p;
}

CustomMode ModeOf(const v1::PowerMode& p) {
  return CustomMode{p.cpu_cores(), p.cpu_freq_khz(), p.gpu_freq_hz(),
                    p.mem_freq_hz()};
}

std::string ModeArg(const CustomMode& m) {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "cores=%d,cpu_khz=%lld,gpu_hz=%lld,mem_hz=%lld", m.cpu_cores,
                static_cast<long long>(m.cpu_freq_khz),
                static_cast<long long>(m.gpu_freq_hz),
                static_cast<long long>(m.mem_freq_hz));
  return buf;
}

// Measured epoch time and energy per mode (means over its done runs), as
// observations.h computes them.
struct Measured {
  double time_s = 0;
  double energy_j = 0;
  int runs = 0;
};
std::map<int64_t, Measured> MeasuredByIndex(LocalFleet& fleet, int64_t sweep,
                                            const ModeSpace& space) {
  std::map<int64_t, Measured> out;
  for (const v1::RunStatus& r : fleet.ListRuns(sweep)) {
    EXPECT_EQ(r.state(), v1::RUN_STATE_DONE) << r.reason();
    if (r.state() != v1::RUN_STATE_DONE) continue;
    const v1::RunSummary& s = r.summary();
    const double time = s.mean_minibatch_s() * kTrainMinibatchesPerEpoch;
    const double energy = (s.energy_stall_j() + s.energy_compute_j()) /
                          static_cast<double>(s.minibatches()) *
                          kTrainMinibatchesPerEpoch;
    auto index = space.IndexOf(ModeOf(r.spec().power_mode()));
    EXPECT_TRUE(index.ok()) << index.status();
    Measured& m = out[*index];
    m.time_s = (m.time_s * m.runs + time) / (m.runs + 1);
    m.energy_j = (m.energy_j * m.runs + energy) / (m.runs + 1);
    ++m.runs;
  }
  return out;
}

v1::SweepSpec SweepOf(const std::string& name,
                      const std::vector<CustomMode>& modes, int repetitions) {
  v1::SweepSpec spec;
  spec.set_name(name);
  spec.add_device_classes(kClass);
  spec.add_models("lenet5");
  spec.add_datasets("fashion-mnist");
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_batch_sizes(64);
  spec.add_loader_workers(0);
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  for (const CustomMode& m : modes) *spec.add_power_modes() = Knobs(m);
  spec.set_repetitions(repetitions);
  spec.set_minibatches(kMinibatches);
  spec.set_seed(7);
  spec.set_telemetry_hz(10);
  return spec;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Ape(double got, double truth) {
  return 100 * std::abs(got - truth) / truth;
}

TEST(ModelFitTwinTest, PlannedProfilingPredictsFiftyOtherModes) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
        .count();
  };
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  for (int i = 0; i < kAgents; ++i) {
    fleet.StartAgent(
        std::string(kClass) + "-twin-" + std::to_string(i),
        {"--platform=twin", std::string("--device_class=") + kClass,
         "--instance=" + std::to_string(i), "--twin_seed=1",
         "--twin_time_scale=0", "--log_level=warning"});
  }
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        int connected = 0;
        for (const auto& d : fleet.ListDevices()) connected += d.connected();
        return connected == kAgents;
      },
      60))
      << fleet.Logs();
  const ModeSpace space = *PowerCatalog::Default().Space(kClass);

  // 1. Plan K = 8 modes and write the sweep file; submit it with the CLI.
  const std::string plan_file = fleet.dir() + "/plan.yaml";
  Finished plan = RunCli(fleet, {"plan-profiling", "--device-class", kClass,
                            "--modes", std::to_string(kProfiled), "--workload",
                            "lenet5", "--batch-size", "64", "--minibatches",
                            std::to_string(kMinibatches), "--repetitions",
                            std::to_string(kRepetitions), "--out", plan_file});
  std::printf(
      "$ powersweep plan-profiling --device-class %s --modes %d ...\n%s\n",
      kClass, kProfiled, plan.output.c_str());
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  Finished submit = RunCli(fleet, {"--quiet", "submit", plan_file});
  ASSERT_EQ(submit.exit_code, 0) << submit.output;
  const int64_t profiled_sweep = std::atoll(submit.output.c_str());
  ASSERT_GT(profiled_sweep, 0) << submit.output;
  ASSERT_TRUE(WaitFinished(fleet, profiled_sweep)) << fleet.Logs();
  const double t_profiled = elapsed();
  const std::map<int64_t, Measured> profiled =
      MeasuredByIndex(fleet, profiled_sweep, space);
  ASSERT_EQ(profiled.size(), static_cast<size_t>(kProfiled));

  // 2. Fit through the CLI.
  Finished fit = RunCli(fleet, {"fit", "--sweep", std::to_string(profiled_sweep)});
  std::printf("$ powersweep fit --sweep %lld\n%s\n",
              static_cast<long long>(profiled_sweep), fit.output.c_str());
  ASSERT_EQ(fit.exit_code, 0) << fit.output << fleet.Logs();
  EXPECT_NE(fit.output.find("linear"), std::string::npos);
  EXPECT_NE(fit.output.find("simulated"), std::string::npos);
  Finished models = RunCli(fleet, {"models"});
  std::printf("$ powersweep models\n%s\n", models.output.c_str());
  EXPECT_EQ(models.exit_code, 0);

  // 3. 50 other modes, drawn deterministically, run as a second sweep.
  std::set<int64_t> used;
  for (const auto& [index, m] : profiled) used.insert(index);
  std::vector<CustomMode> eval;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  while (static_cast<int>(eval.size()) < kEvaluated) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t i =
        static_cast<int64_t>(x % static_cast<uint64_t>(space.Size()));
    if (used.insert(i).second) eval.push_back(*space.At(i));
  }
  std::string error;
  const int64_t eval_sweep =
      fleet.Submit(SweepOf("it-model-eval", eval, kRepetitions), &error);
  ASSERT_GT(eval_sweep, 0) << error;
  ASSERT_TRUE(WaitFinished(fleet, eval_sweep)) << fleet.Logs();
  const std::map<int64_t, Measured> truth =
      MeasuredByIndex(fleet, eval_sweep, space);
  ASSERT_EQ(truth.size(), static_cast<size_t>(kEvaluated));
  const double t_evaluated = elapsed();

  // 4. Predict them (Control.Predict) and compare.
  v1::ModelSelector selector;
  selector.set_device_class(kClass);
  selector.set_model("lenet5");
  v1::PredictRequest predict;
  *predict.mutable_selector() = selector;
  for (const CustomMode& m : eval) *predict.add_modes() = Knobs(m);
  v1::PredictResponse predicted;
  {
    grpc::ClientContext ctx;
    grpc::Status st = fleet.control()->Predict(&ctx, predict, &predicted);
    ASSERT_TRUE(st.ok()) << st.error_message();
  }
  ASSERT_EQ(predicted.predictions_size(), kEvaluated);
  std::vector<double> time_ape, energy_ape;
  int covered = 0;
  for (int i = 0; i < kEvaluated; ++i) {
    const v1::ModePrediction& p = predicted.predictions(i);
    const Measured& t = truth.at(*space.IndexOf(eval[i]));
    EXPECT_FALSE(p.measured());
    time_ape.push_back(Ape(p.epoch_time_s(), t.time_s));
    energy_ape.push_back(Ape(p.epoch_energy_j(), t.energy_j));
    covered += p.has_interval() && t.time_s >= p.epoch_time_lo_s() &&
               t.time_s <= p.epoch_time_hi_s();
  }
  const double median_time = Median(time_ape);
  const double median_energy = Median(energy_ape);
  const v1::WorkloadModel& model = predicted.model();
  std::printf(
      "RESULT twin %s lenet5 train batch 64, %d agents: K=%d profiled, %d "
      "evaluated: time[%s] median APE %.2f%% (max %.2f%%, CV MAPE %.2f%%, "
      "90%% interval covers %d/%d); energy[%s] median APE %.2f%% (max "
      "%.2f%%, CV MAPE %.2f%%)\n",
      kClass, kAgents, kProfiled, kEvaluated, model.time_model().form().c_str(),
      median_time, *std::max_element(time_ape.begin(), time_ape.end()),
      model.time_model().cv_mape_pct(), covered, kEvaluated,
      model.energy_model().form().c_str(), median_energy,
      *std::max_element(energy_ape.begin(), energy_ape.end()),
      model.energy_model().cv_mape_pct());
  Finished some = RunCli(fleet, {"predict", "--workload", "lenet5", "--device-class",
                            kClass, "--mode", ModeArg(eval[0]), "--mode",
                            ModeArg(eval[1]), "--preset", "MAXN"});
  std::printf("$ powersweep predict ...\n%s\n", some.output.c_str());
  EXPECT_EQ(some.exit_code, 0);
  EXPECT_LE(median_time, 5.0);
  EXPECT_LE(median_energy, 10.0);

  // 5. best --max-epoch-time: budget 1.5 x the fastest measured mode.
  std::map<int64_t, Measured> all = truth;
  all.insert(profiled.begin(), profiled.end());
  double fastest = 1e300;
  for (const auto& [i, m] : all) fastest = std::min(fastest, m.time_s);
  const double budget = 1.5 * fastest;
  int64_t best_measured = -1;
  for (const auto& [i, m] : all) {
    if (m.time_s <= budget &&
        (best_measured < 0 || m.energy_j < all[best_measured].energy_j)) {
      best_measured = i;
    }
  }
  ASSERT_GE(best_measured, 0);
  char budget_arg[32];
  std::snprintf(budget_arg, sizeof budget_arg, "%.4fs", budget);
  Finished best = RunCli(fleet, {"best", "--workload", "lenet5", "--device-class",
                            kClass, "--max-epoch-time", budget_arg});
  std::printf("$ powersweep best --max-epoch-time %s\n%s\n", budget_arg,
              best.output.c_str());
  ASSERT_EQ(best.exit_code, 0) << best.output;
  // The pick (and the conservative pick, judged on the upper end of the
  // time interval), each run once per twin: what it really costs.
  struct Pick {
    const char* name;
    CustomMode mode;
    v1::ModePrediction predicted;
    Measured measured;
    double gap_pct = 0;
  };
  std::vector<Pick> picks;
  for (bool conservative : {false, true}) {
    v1::BestRequest best_req;
    *best_req.mutable_selector() = selector;
    best_req.set_max_epoch_time_s(std::stod(budget_arg));
    best_req.set_conservative(conservative);
    v1::BestResponse resp;
    grpc::ClientContext ctx;
    grpc::Status st = fleet.control()->Best(&ctx, best_req, &resp);
    ASSERT_TRUE(st.ok()) << st.error_message();
    Pick p;
    p.name = conservative ? "conservative pick" : "pick";
    p.mode = ModeOf(resp.best().mode());
    p.predicted = resp.best();
    const int64_t sweep =
        fleet.Submit(SweepOf("it-model-best", {p.mode}, kAgents), &error);
    ASSERT_GT(sweep, 0) << error;
    ASSERT_TRUE(WaitFinished(fleet, sweep)) << fleet.Logs();
    p.measured = MeasuredByIndex(fleet, sweep, space).begin()->second;
    picks.push_back(p);
  }
  const Measured& ref = all[best_measured];
  for (Pick& p : picks) {
    p.gap_pct = 100 * (p.measured.energy_j - ref.energy_j) / ref.energy_j;
    std::printf(
        "RESULT best least-energy with epoch time <= %s, %s: %s measured "
        "%.4g J in %.4g s (predicted %.4g J in %.4g s, time %+.1f%% over the "
        "budget); best of the %zu measured modes %s: %.4g J in %.4g s: "
        "energy gap %+.2f%%\n",
        budget_arg, p.name, ModeArg(p.mode).c_str(), p.measured.energy_j,
        p.measured.time_s, p.predicted.epoch_energy_j(),
        p.predicted.epoch_time_s(), 100 * (p.measured.time_s / budget - 1),
        all.size(), ModeArg(*space.At(best_measured)).c_str(), ref.energy_j,
        ref.time_s, p.gap_pct);
  }
  EXPECT_LE(picks[0].gap_pct, 5.0);
  EXPECT_LE(picks[1].gap_pct, 5.0);
  EXPECT_LE(picks[1].measured.time_s, 1.05 * budget);

  Finished pareto = RunCli(fleet, {"pareto", "--workload", "lenet5",
                              "--device-class", kClass, "--measured"});
  std::printf("$ powersweep pareto --measured\n%s\n", pareto.output.c_str());
  EXPECT_EQ(pareto.exit_code, 0);
  Finished front = RunCli(fleet, {"pareto", "--workload", "lenet5",
                             "--device-class", kClass});
  EXPECT_EQ(front.exit_code, 0);
  EXPECT_NE(front.output.find("MAXN"), std::string::npos);
  std::printf("$ powersweep pareto\n%s\n", front.output.c_str());
  Finished csv = RunCli(fleet, {"pareto", "--workload", "lenet5", "--device-class",
                           kClass, "--format", "csv"});
  EXPECT_EQ(csv.exit_code, 0);
  EXPECT_EQ(csv.output.rfind("cores,cpu_mhz,gpu_mhz,mem_mhz,epoch_time_s,", 0),
            0u)
      << csv.output.substr(0, 200);
  std::printf(
      "wall time: profiled %d modes at %.1f s, evaluated %d at %.1f s, "
      "total %.1f s\n",
      kProfiled, t_profiled, kEvaluated, t_evaluated, elapsed());
}

}  // namespace
}  // namespace powersweep::testing
