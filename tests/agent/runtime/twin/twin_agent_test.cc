// The twin behind the real RunExecutor: the same path a real run takes.
#include "agent/runtime/twin/twin_agent.h"

#include <vector>

#include "agent/run/capabilities.h"
#include "agent/run/run_executor.h"
#include "agent/runtime/recording_sink.h"
#include "common/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/runtime/twin/twin_executor.h"

namespace powersweep {
namespace {

v1::RunSpec Spec() {
  v1::RunSpec spec;
  spec.set_run_id(7);
  spec.set_attempt(1);
  spec.set_device_class("xavier-nx");
  auto* w = spec.mutable_workload();
  w->set_model("lenet5");
  w->set_dataset("fashion-mnist");
  w->set_task(v1::TASK_INFER);
  w->set_batch_size(128);
  w->set_loader_workers(1);
  w->set_minibatches(400);
  w->set_seed(1);
  spec.mutable_power_mode()->set_cpu_cores(4);
  spec.mutable_power_mode()->set_gpu_freq_hz(599250000);
  spec.set_telemetry_hz(20);
  spec.set_timeout_s(600);
  return spec;
}

TEST(TwinAgentTest, DefaultDeviceIdAndFlagErrors) {
  FakeClock clock;
  TwinAgentOptions o;
  o.device_class = "xavier-nx";
  o.instance = 4;
  auto agent = MakeTwinAgent(o, &clock);
  ASSERT_TRUE(agent.ok()) << agent.status();
  EXPECT_EQ(agent->platform->Identity().device_id(), "xavier-nx-twin-4");
  o.time_scale = -1;
  agent = MakeTwinAgent(o, &clock);
  ASSERT_FALSE(agent.ok());
  EXPECT_NE(agent.status().message().find("--twin_time_scale"),
            std::string::npos);
}

TEST(TwinAgentTest, RegistersTheClassTablesAndEveryModelAndDataSetItCosts) {
  FakeClock clock;
  TwinAgentOptions o;
  o.device_class = "xavier-agx";
  auto agent = MakeTwinAgent(o, &clock);
  ASSERT_TRUE(agent.ok()) << agent.status();
  const v1::DeviceCapabilities caps =
      AgentCapabilities(*agent->platform, agent->catalog);
  EXPECT_EQ(caps.cpu_cores(), 8);
  EXPECT_EQ(caps.cpu_freqs_khz_size(), 29);
  EXPECT_EQ(caps.gpu_freqs_hz_size(), 14);
  EXPECT_EQ(caps.mem_freqs_hz_size(), 9);
  // The networks and the kernels (any shape: twin_kernel_test.cc).
  EXPECT_THAT(caps.models(),
              testing::ElementsAre("alexnet", "conv", "deepspeech2", "dqn",
                                   "gemm",
                                   "gpt2_small", "inception_v3", "lenet5",
                                   "lstm_lm", "memnet", "mobilebert",
                                   "mobilenetv3", "resnet18", "resnet50",
                                   "rnn", "seq2seq", "seq2seq_lstm",
                                   "squeezenet1_1", "vae", "vgg11", "vgg19"));
  EXPECT_THAT(caps.datasets(),
              testing::ElementsAre("babi", "catch-frames", "cifar10",
                                   "espeak-words", "fashion-mnist", "gld23k",
                                   "imagenet", "mnist", "synthetic",
                                   "wikitext", "wordnet"));
  // Simulated runs only: never offers containers.
  EXPECT_THAT(caps.runtimes(), testing::ElementsAre(v1::RUNTIME_NATIVE));
}

TEST(TwinAgentTest, ExecutorRunsATwinRunWithSimulatedTelemetryAndEnergy) {
  FakeClock clock;
  TwinAgentOptions o;
  o.device_class = "xavier-nx";
  auto agent = MakeTwinAgent(o, &clock);
  ASSERT_TRUE(agent.ok()) << agent.status();
  RunExecutor executor =
      MakeTwinExecutor(*agent, &clock, "twin_agent_test", 100);
  RecordingSink sink;
  v1::RunFinished fin = executor.Execute(Spec(), &sink);

  ASSERT_TRUE(fin.result().ok()) << fin.result().reason();
  const std::vector<v1::RunStarted> started = sink.started();
  ASSERT_EQ(started.size(), 1u);
  const v1::AppliedPowerMode& mode = started[0].applied_mode();
  EXPECT_EQ(mode.actual().gpu_freq_hz(), 599250000);
  EXPECT_EQ(mode.actual().cpu_cores(), 4);
  EXPECT_EQ(mode.cores_provenance(), v1::PROVENANCE_SIMULATED);

  const std::vector<v1::TelemetrySample> samples = sink.Samples();
  EXPECT_EQ(sink.Records().size(), 400u);
  ASSERT_GT(samples.size(), 20u);
  double joules = 0;
  for (size_t i = 1; i < samples.size(); ++i) {
    EXPECT_GT(samples[i].t_s(), samples[i - 1].t_s());
    EXPECT_EQ(samples[i].cores_size(), 4);
    EXPECT_EQ(samples[i].gpu_freq_hz(), 599250000);
    joules += (samples[i].t_s() - samples[i - 1].t_s()) *
              (samples[i].power_mw() + samples[i - 1].power_mw()) / 2e3;
  }
  const v1::RunResult& r = fin.result();
  EXPECT_EQ(r.energy_provenance(), v1::PROVENANCE_SIMULATED);
  EXPECT_NEAR(r.energy_j(), joules, 1e-9 * joules);
  EXPECT_DOUBLE_EQ(r.duration_s(), samples.back().t_s());
  EXPECT_EQ(r.provenance().framework(), "twin-model");
  EXPECT_EQ(fin.batches(), static_cast<int64_t>(sink.batches().size()));
  // The platform went back to MAXN after the run.
  EXPECT_EQ(agent->platform->Current().cores, 6);
}

TEST(TwinAgentTest, ExecutorRejectsAFrequencyTheClassDoesNotHave) {
  FakeClock clock;
  TwinAgentOptions o;
  o.device_class = "xavier-nx";
  auto agent = MakeTwinAgent(o, &clock);
  ASSERT_TRUE(agent.ok());
  RunExecutor executor =
      MakeTwinExecutor(*agent, &clock, "twin_agent_test", 100);
  RecordingSink sink;
  v1::RunSpec spec = Spec();
  spec.mutable_power_mode()->set_gpu_freq_hz(600000000);
  v1::RunFinished fin = executor.Execute(spec, &sink);
  EXPECT_FALSE(fin.result().ok());
  EXPECT_NE(fin.result().reason().find("gpu_freq_hz: 600000000"),
            std::string::npos);
  EXPECT_TRUE(sink.started().empty());
}

}  // namespace
}  // namespace powersweep
