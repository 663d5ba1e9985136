#include "agent/runtime/twin/twin_simulation.h"

#include <vector>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

struct Trace {
  std::vector<TwinEvent> samples, minibatches, finished;
};

class TwinSimulationTest : public testing::Test {
 protected:
  TwinSimulationTest() : perf_(FindTwinClass("orin-agx"), {}) {
    config_.perf = &perf_;
    config_.op = FindTwinClass("orin-agx")->Max();
    config_.shape.cost = *ModelCostFor("lenet5");
    config_.shape.dataset = *DatasetCostFor("fashion-mnist");
    config_.shape.batch_size = 64;
    config_.shape.loader_workers = 2;
    config_.minibatches = 500;
    config_.telemetry_hz = 20;
    config_.noise_seed = 11;
  }
  Trace Run(TwinSimulationConfig config, TwinSimulation** out = nullptr) {
    sim_ = std::make_unique<TwinSimulation>(config);
    Trace trace;
    TwinEvent e;
    double last_t = 0;
    while (sim_->Next(&e)) {
      EXPECT_GE(e.t_s, last_t) << "events out of time order";
      last_t = e.t_s;
      if (e.kind == TwinEvent::kSample) trace.samples.push_back(e);
      if (e.kind == TwinEvent::kMinibatch) trace.minibatches.push_back(e);
      if (e.kind == TwinEvent::kFinished) trace.finished.push_back(e);
    }
    return trace;
  }
  PerfModel perf_;
  TwinSimulationConfig config_;
  std::unique_ptr<TwinSimulation> sim_;
};

TEST_F(TwinSimulationTest, EmitsOneRecordPerMinibatchThenFinished) {
  Trace t = Run(config_);
  ASSERT_EQ(t.minibatches.size(), 500u);
  ASSERT_EQ(t.finished.size(), 1u);
  EXPECT_EQ(t.finished[0].finished.minibatches(), 500);
  EXPECT_EQ(t.finished[0].finished.stop_reason(), "minibatches");
  double expected_start = sim_->startup_s();  // records use the run clock
  for (size_t i = 0; i < t.minibatches.size(); ++i) {
    const v1::MinibatchRecord& r = t.minibatches[i].record;
    EXPECT_EQ(r.index(), static_cast<int64_t>(i));
    EXPECT_NEAR(r.t_start_s(), expected_start, 1e-9);
    EXPECT_LE(r.stall_s() + r.compute_s(), r.e2e_s());
    EXPECT_EQ(r.samples(), 64);
    expected_start += r.e2e_s();
  }
  // The loss of a training run falls.
  EXPECT_LT(t.minibatches.back().record.loss(),
            t.minibatches.front().record.loss());
  EXPECT_NEAR(t.finished[0].t_s, expected_start, 1e-9);
  EXPECT_NEAR(t.finished[0].finished.elapsed_s(),
              expected_start - sim_->startup_s(), 1e-9);
}

// gpt2_small inference records what the workload records: tokens
// generated, time to first token and per-token latency (`runs` showed `-`
// for twins); training records tokens read.
TEST_F(TwinSimulationTest, Gpt2RecordsTokensTimeToFirstTokenAndPerToken) {
  TwinSimulationConfig gen = config_;
  gen.shape.cost = *ModelCostFor("gpt2_small");
  gen.shape.dataset = *DatasetCostFor("synthetic");
  gen.shape.batch_size = 2;
  gen.shape.loader_workers = 0;
  gen.shape.train = false;
  gen.minibatches = 5;
  Trace t = Run(gen);
  ASSERT_EQ(t.minibatches.size(), 5u);
  for (const TwinEvent& e : t.minibatches) {
    const v1::MinibatchRecord& r = e.record;
    EXPECT_EQ(r.tokens(), 2 * 16);
    ASSERT_TRUE(r.has_ttft_s() && r.has_per_token_s());
    EXPECT_GT(r.ttft_s(), 0);
    EXPECT_GT(r.per_token_s(), 0);
    // The prompt's pass and 15 decode steps make up the compute.
    EXPECT_NEAR(r.ttft_s() + 15 * r.per_token_s(), r.compute_s(),
                1e-9 * r.compute_s());
    // A 128-token prompt costs more than one decode step.
    EXPECT_GT(r.ttft_s(), r.per_token_s());
  }
  gen.shape.train = true;
  t = Run(gen);
  EXPECT_EQ(t.minibatches[0].record.tokens(), 2 * 128);
  EXPECT_FALSE(t.minibatches[0].record.has_ttft_s());
}

TEST_F(TwinSimulationTest, SamplesAtTheTelemetryRateInSimulatedTime) {
  Trace t = Run(config_);
  const double end = t.finished[0].t_s;
  // t = 0, k / hz for k = 1 .. floor(end * hz), and the end.
  const size_t expected = 1 + static_cast<size_t>(end * 20) + 1;
  ASSERT_EQ(t.samples.size(), expected);
  EXPECT_DOUBLE_EQ(t.samples.front().t_s, 0);
  EXPECT_DOUBLE_EQ(t.samples[1].t_s, 0.05);
  EXPECT_DOUBLE_EQ(t.samples.back().t_s, end);
  for (const TwinEvent& s : t.samples) {
    EXPECT_EQ(s.sample.power_provenance(), v1::PROVENANCE_SIMULATED);
    EXPECT_GT(s.sample.power_mw(), 0);
    EXPECT_DOUBLE_EQ(s.sample.t_s(), s.t_s);
  }
  // During start-up the GPU is idle; while training it works.
  EXPECT_EQ(t.samples[1].sample.gpu_util(), 0);
  EXPECT_GT(t.samples[t.samples.size() - 2].sample.gpu_util(), 0);
}

TEST_F(TwinSimulationTest, EnergyIsTheTrapezoidIntegralOfThePowerTrace) {
  Trace t = Run(config_);
  double joules = 0;
  for (size_t i = 1; i < t.samples.size(); ++i) {
    const auto& a = t.samples[i - 1].sample;
    const auto& b = t.samples[i].sample;
    joules += (b.t_s() - a.t_s()) * (a.power_mw() + b.power_mw()) / 2 / 1000;
  }
  EXPECT_GT(joules, 0);
  EXPECT_NEAR(sim_->energy_j(), joules, 1e-9 * joules);
}

TEST_F(TwinSimulationTest, SameConfigSameEventsAndOtherSeedOtherTimes) {
  Trace a = Run(config_);
  Trace b = Run(config_);
  ASSERT_EQ(a.minibatches.size(), b.minibatches.size());
  for (size_t i = 0; i < a.minibatches.size(); ++i) {
    EXPECT_EQ(a.minibatches[i].record.SerializeAsString(),
              b.minibatches[i].record.SerializeAsString());
  }
  TwinSimulationConfig other = config_;
  other.noise_seed = 12;
  Trace c = Run(other);
  EXPECT_NE(a.minibatches[10].record.compute_s(),
            c.minibatches[10].record.compute_s());
}

TEST_F(TwinSimulationTest, StopsOnEpochsAndOnDuration) {
  TwinSimulationConfig epochs = config_;
  epochs.minibatches = 0;
  epochs.epochs = 1;
  epochs.shape.train = false;  // 10000 / 64 = 156 minibatches per epoch
  epochs.telemetry_hz = 0;
  Trace t = Run(epochs);
  EXPECT_EQ(t.minibatches.size(), 156u);
  EXPECT_TRUE(t.samples.empty());
  EXPECT_GT(sim_->energy_j(), 0);  // still integrated, at a hidden 10 Hz
  EXPECT_EQ(t.finished[0].finished.stop_reason(), "epochs");

  TwinSimulationConfig duration = config_;
  duration.minibatches = 0;
  duration.duration_s = 0.5;
  t = Run(duration);
  EXPECT_EQ(t.finished[0].finished.stop_reason(), "duration");
  EXPECT_GE(t.finished[0].finished.elapsed_s(), 0.5);
  const auto& last = t.minibatches.back().record;
  // The last one started before the limit (timing starts after start-up).
  EXPECT_LT(last.t_start_s() - sim_->startup_s(), 0.5);
}

TEST_F(TwinSimulationTest, TimeoutEndsTheRunWithoutAFinishedEvent) {
  TwinSimulationConfig config = config_;
  config.minibatches = 1000000;
  config.timeout_s = 3;
  Trace t = Run(config);
  EXPECT_TRUE(sim_->timed_out());
  EXPECT_TRUE(t.finished.empty());
  EXPECT_DOUBLE_EQ(t.samples.back().t_s, 3);
  EXPECT_LE(t.minibatches.back().t_s, 3);
  EXPECT_DOUBLE_EQ(sim_->now_s(), 3);
}

TEST_F(TwinSimulationTest, LowerGpuClockMeansLongerRunAndLessGpuPower) {
  TwinSimulationConfig slow = config_;
  slow.shape.batch_size = 256;
  TwinSimulationConfig fast = slow;
  slow.op.gpu_hz = FindTwinClass("orin-agx")->gpu_freqs_hz.front();
  Trace s = Run(slow);
  const double slow_end = s.finished[0].t_s;
  Trace f = Run(fast);
  EXPECT_GT(slow_end, f.finished[0].t_s);
  // VDD_GPU_SOC while training (the last sample before the end).
  EXPECT_LT(s.samples[s.samples.size() - 2].sample.rails(0).power_mw(),
            f.samples[f.samples.size() - 2].sample.rails(0).power_mw());
}

}  // namespace
}  // namespace powersweep
