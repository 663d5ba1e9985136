#include "agent/platform/twin/perf_model.h"

#include <cmath>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

TwinWorkloadShape Shape(bool train, int batch, int workers) {
  TwinWorkloadShape w;
  w.cost = *ModelCostFor("lenet5");
  w.dataset = *DatasetCostFor("fashion-mnist");
  w.train = train;
  w.batch_size = batch;
  w.loader_workers = workers;
  return w;
}

const TwinClass& Orin() { return *FindTwinClass("orin-agx"); }

TEST(ModelCostTest, LeNet5CostFollowsFromItsLayerShapes) {
  ModelCost c = *ModelCostFor("lenet5");
  // conv1 28*28*6*25, conv2 10*10*16*25*6, fc 400*120 + 120*84 + 84*10.
  EXPECT_DOUBLE_EQ(c.forward_macs,
                   28 * 28 * 6 * 25 + 10 * 10 * 16 * 150 + 400 * 120 +
                       120 * 84 + 84 * 10);
  EXPECT_NEAR(c.ForwardFlops(), 0.83e6, 0.01e6);
  EXPECT_DOUBLE_EQ(c.params, 156 + 2416 + 48120 + 10164 + 850);
  EXPECT_GT(c.train_kernels, c.infer_kernels);
  EXPECT_FALSE(ModelCostFor("resnet9").ok());
}

TEST(PerfModelTest, HigherGpuFrequencyLowersComputeTimeOnEveryStep) {
  PerfModel model(&Orin(), {});
  OperatingPoint op = Orin().Max();
  for (int batch : {16, 64, 256}) {
    double previous = INFINITY;
    for (int64_t gpu : Orin().gpu_freqs_hz) {
      op.gpu_hz = gpu;
      const double t = model.Expected(op, Shape(true, batch, 2)).compute_s;
      EXPECT_LT(t, previous) << "batch " << batch << " gpu " << gpu;
      previous = t;
    }
  }
}

TEST(PerfModelTest, HigherMemoryAndCpuFrequenciesLowerComputeTime) {
  PerfModel model(&Orin(), {});
  OperatingPoint op = Orin().Max();
  double previous = INFINITY;
  for (int64_t mem : Orin().mem_freqs_hz) {
    op.mem_hz = mem;
    const double t = model.Expected(op, Shape(true, 256, 2)).compute_s;
    EXPECT_LT(t, previous) << "mem " << mem;
    previous = t;
  }
  op = Orin().Max();
  previous = INFINITY;
  for (int64_t cpu : Orin().cpu_freqs_khz) {
    op.cpu_khz = cpu;
    const MinibatchTiming t = model.Expected(op, Shape(true, 64, 2));
    EXPECT_LT(t.compute_s, previous) << "cpu " << cpu;
    previous = t.compute_s;
  }
}

TEST(PerfModelTest, MoreLoaderWorkersNeverRaiseTheStallAndLowerItWhenFetchBound) {
  PerfModel model(&Orin(), {});
  for (int64_t cpu : Orin().cpu_freqs_khz) {
    for (int batch : {32, 256, 1024}) {
      OperatingPoint op = Orin().Max();
      op.cpu_khz = cpu;
      double previous = INFINITY;
      // From one worker up (0 -> 1 adds the hand-over, see below).
      for (int workers = 1; workers <= 11; ++workers) {
        const double stall = model.Expected(op, Shape(false, batch, workers)).stall_s;
        EXPECT_LE(stall, previous + 1e-15)
            << "cpu " << cpu << " batch " << batch << " workers " << workers;
        previous = stall;
      }
    }
  }
  // Fetch-bound: JPEG decoding on a slow CPU, fast GPU. (LeNet-5's
  // 784-byte samples are not: their hand-over outweighs their fetch.)
  OperatingPoint op = Orin().Max();
  op.cpu_khz = Orin().cpu_freqs_khz.front();
  TwinWorkloadShape gld = Shape(true, 16, 1);
  gld.cost = *ModelCostFor("mobilenetv3");
  gld.dataset = *DatasetCostFor("gld23k");
  const double one = model.Expected(op, gld).stall_s;
  gld.loader_workers = 2;
  const double two = model.Expected(op, gld).stall_s;
  EXPECT_GT(one, 0);
  EXPECT_LT(two, one);
}

TEST(PerfModelTest, AWorkerCostsSmallSamplesMoreThanItSavesAndHelpsLargeOnes) {
  PerfModel model(&Orin(), {});
  const OperatingPoint op = Orin().Max();
  // LeNet-5 on 784-byte images: taking a batch over from a worker process
  // costs more than fetching it on the training thread.
  EXPECT_GT(model.Expected(op, Shape(true, 64, 1)).stall_s,
            model.Expected(op, Shape(true, 64, 0)).stall_s);
  // JPEG decoding (GLD23k): the worker hides far more than the hand-over.
  TwinWorkloadShape gld = Shape(true, 16, 0);
  gld.cost = *ModelCostFor("mobilenetv3");
  gld.dataset = *DatasetCostFor("gld23k");
  const double serial = model.Expected(op, gld).stall_s;
  gld.loader_workers = 1;
  EXPECT_LT(model.Expected(op, gld).stall_s, 0.5 * serial);
}

TEST(PerfModelTest, WorkersCannotHelpOnASingleCore) {
  PerfModel model(&Orin(), {});
  OperatingPoint op = Orin().Max();
  op.cores = 1;
  const MinibatchTiming serial = model.Expected(op, Shape(true, 64, 0));
  const MinibatchTiming shared = model.Expected(op, Shape(true, 64, 4));
  EXPECT_NEAR(serial.stall_s, serial.fetch_s, 1e-15);
  EXPECT_EQ(serial.handover_s, 0);  // no worker to take a batch from
  EXPECT_GE(shared.stall_s, serial.stall_s);
}

TEST(PerfModelTest, TimingArithmeticHolds) {
  PerfModel model(&Orin(), {});
  TwinRng rng(5);
  for (int i = 0; i < 100; ++i) {
    MinibatchTiming t =
        model.Draw(Orin().Max(), Shape(i % 2 == 0, 64, i % 3), i, &rng);
    EXPECT_GE(t.stall_s, 0);
    EXPECT_GT(t.compute_s, 0);
    EXPECT_LE(t.stall_s + t.compute_s, t.e2e_s);
  }
}

TEST(PerfModelTest, DrawsAreDeterministicForASeedAndNoisyAroundTheExpectation) {
  PerfModel model(&Orin(), {});
  const TwinWorkloadShape w = Shape(true, 64, 2);
  TwinRng a(42), b(42), c(43);
  double sum = 0;
  const int n = 2000;
  bool differs_from_other_seed = false;
  for (int i = 1; i <= n; ++i) {
    const double ta = model.Draw(Orin().Max(), w, i, &a).compute_s;
    EXPECT_EQ(ta, model.Draw(Orin().Max(), w, i, &b).compute_s);
    if (ta != model.Draw(Orin().Max(), w, i, &c).compute_s) {
      differs_from_other_seed = true;
    }
    sum += ta;
  }
  EXPECT_TRUE(differs_from_other_seed);
  const double expected = model.Expected(Orin().Max(), w).compute_s;
  EXPECT_NEAR(sum / n, expected, 0.005 * expected);  // 2% noise, mean 1
}

TEST(PerfModelTest, InstanceVariationStaysWithinItsBoundsAndIsDeterministic) {
  const PerfModel nominal(&Orin(), {});
  const TwinWorkloadShape w = Shape(true, 64, 2);
  const double base = nominal.Expected(Orin().Max(), w).compute_s;
  double lo = INFINITY, hi = 0;
  for (int64_t instance = 0; instance < 200; ++instance) {
    InstanceVariation v = VariationFor(7, "orin-agx", instance);
    EXPECT_GE(v.speed, 1 - kSpeedSpread);
    EXPECT_LE(v.speed, 1 + kSpeedSpread);
    EXPECT_GE(v.static_power, 1 - kStaticPowerSpread);
    EXPECT_LE(v.static_power, 1 + kStaticPowerSpread);
    InstanceVariation again = VariationFor(7, "orin-agx", instance);
    EXPECT_EQ(v.speed, again.speed);
    const double t = PerfModel(&Orin(), v).Expected(Orin().Max(), w).compute_s;
    EXPECT_GE(t, base / (1 + kSpeedSpread) - 1e-15);
    EXPECT_LE(t, base / (1 - kSpeedSpread) + 1e-15);
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  EXPECT_GT(hi - lo, 0.03 * base);  // instances really differ
}

TEST(PerfModelTest, CpuWorkSlowsWithTheMemoryClockOnlyOnceDramBindsIt) {
  const TwinClass& agx = *FindTwinClass("xavier-agx");
  PerfModel model(&agx, {});
  OperatingPoint op = agx.Max();
  const double cycles = 1e6;
  const double maxn = model.HostSeconds(cycles, op);
  // Core-bound at MAXN: the clock sets the time, DRAM adds its overlap.
  EXPECT_GT(maxn, cycles / (op.cpu_khz * 1e3 * agx.perf.cpu_ipc));
  EXPECT_LT(maxn, 1.1 * cycles / (op.cpu_khz * 1e3 * agx.perf.cpu_ipc));
  // A lower CPU clock with the memory at its maximum: still core-bound.
  op.cpu_khz = agx.cpu_freqs_khz[agx.cpu_freqs_khz.size() / 2];
  EXPECT_GT(model.HostSeconds(cycles, op), 1.5 * maxn);
  // Half the memory clock at the top CPU clock: DRAM-bound, much slower.
  op = agx.Max();
  op.mem_hz = 1065600000;
  EXPECT_GT(model.HostSeconds(cycles, op), 1.3 * maxn);
}

TEST(PerfModelTest, TheTrainingThreadStallsForTheHandOverEvenWhenWorkersKeepUp) {
  PerfModel model(&Orin(), {});
  const MinibatchTiming t = model.Expected(Orin().Max(), Shape(true, 64, 4));
  EXPECT_LT(t.fetch_s / 4, t.compute_s);  // the workers keep up
  EXPECT_GT(t.handover_s, 0);
  EXPECT_NEAR(t.stall_s, t.handover_s, 1e-15);
}

TEST(PerfModelTest, ColdPageCacheMakesStartupSlower) {
  PerfModel model(FindTwinClass("nano"), {});
  const TwinWorkloadShape w = Shape(true, 64, 0);
  const OperatingPoint op = FindTwinClass("nano")->Max();
  EXPECT_GT(model.StartupSeconds(op, w, false),
            model.StartupSeconds(op, w, true) + 0.2);
  EXPECT_EQ(model.BatchesPerEpoch(w), 60000 / 64);
}

TEST(PerfModelTest, SyntheticDataStallsOnlyForTheHandOverAndStartsFast) {
  PerfModel model(&Orin(), {});
  const OperatingPoint op = Orin().Max();
  TwinWorkloadShape real;
  real.cost = *ModelCostFor("resnet50");
  real.dataset = *DatasetCostFor("imagenet");
  real.train = true;
  real.batch_size = 16;
  real.loader_workers = 2;
  TwinWorkloadShape synthetic = real;
  synthetic.dataset = *DatasetCostFor("synthetic");
  const MinibatchTiming r = model.Expected(op, real, 1, 0);
  const MinibatchTiming s = model.Expected(op, synthetic, 1, 0);
  EXPECT_DOUBLE_EQ(s.compute_s, r.compute_s);
  EXPECT_LT(s.stall_s, r.stall_s);
  EXPECT_EQ(s.io_s, 0);
  EXPECT_EQ(s.handover_s, 0);
  EXPECT_LT(s.stall_s, 0.001 * s.compute_s);
  EXPECT_LT(model.StartupSeconds(op, synthetic, 0),
            model.StartupSeconds(op, real, 0));
  EXPECT_GT(model.BatchesPerEpoch(synthetic), int64_t{1} << 40);
}

}  // namespace
}  // namespace powersweep
