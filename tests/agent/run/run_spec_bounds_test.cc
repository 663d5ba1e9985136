#include "agent/run/run_spec_bounds.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "agent/util/seconds_to_nanos.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

v1::RunSpec Valid() {
  v1::RunSpec spec;
  spec.set_run_id(1);
  spec.set_tenants(2);
  spec.set_telemetry_hz(10);
  spec.set_timeout_s(600);
  auto* w = spec.mutable_workload();
  w->set_model("lenet5");
  w->set_dataset("fashion-mnist");
  w->set_task(v1::TASK_TRAIN);
  w->set_batch_size(32);
  w->set_loader_workers(2);
  w->set_epochs(1);
  w->set_duration_s(60);
  auto* m = spec.mutable_power_mode();
  m->set_cpu_cores(4);
  m->set_cpu_freq_khz(1497600);
  m->set_gpu_freq_hz(816000000);
  m->set_mem_freq_hz(3199000000);
  return spec;
}

std::string Message(const v1::RunSpec& spec) {
  absl::Status s = CheckRunSpecBounds(spec);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  return std::string(s.message());
}

TEST(RunSpecBounds, AcceptsAnOrdinaryRunAndTheLimitsThemselves) {
  EXPECT_TRUE(CheckRunSpecBounds(Valid()).ok());
  EXPECT_TRUE(CheckRunSpecBounds(v1::RunSpec()).ok());  // all zero: unset
  v1::RunSpec spec = Valid();
  spec.set_tenants(kAgentMaxTenants);
  spec.set_telemetry_hz(kAgentMaxTelemetryHz);
  spec.set_timeout_s(kAgentMaxSeconds);
  spec.mutable_workload()->set_duration_s(kAgentMaxSeconds);
  spec.mutable_workload()->set_minibatches(kAgentMaxMinibatches);
  spec.mutable_power_mode()->set_mem_freq_hz(kAgentMaxDeviceFreqHz);
  EXPECT_TRUE(CheckRunSpecBounds(spec).ok());
}

TEST(RunSpecBounds, HugeTenantsNamesTheFieldTheValueAndTheLimit) {
  v1::RunSpec spec = Valid();
  spec.set_tenants(2147483647);
  const std::string m = Message(spec);
  EXPECT_THAT(m, HasSubstr("tenants: 2147483647"));
  EXPECT_THAT(m, HasSubstr("limit of 64"));
}

TEST(RunSpecBounds, NonFiniteAndHugeSecondsAreRejected) {
  v1::RunSpec spec = Valid();
  spec.set_timeout_s(1e308);
  EXPECT_THAT(Message(spec), HasSubstr("timeout_s: 1e+308 is more than the "
                                       "limit of 604800"));
  spec.set_timeout_s(std::numeric_limits<double>::infinity());
  EXPECT_THAT(Message(spec), HasSubstr("timeout_s: inf is not a finite"));
  spec.set_timeout_s(std::nan(""));
  EXPECT_THAT(Message(spec), HasSubstr("timeout_s: nan is not a finite"));
  spec = Valid();
  spec.set_telemetry_hz(1001);
  EXPECT_THAT(Message(spec),
              HasSubstr("telemetry_hz: 1001 is more than the limit of 1000"));
  spec = Valid();
  spec.mutable_workload()->set_duration_s(-1);
  EXPECT_THAT(Message(spec), HasSubstr("workload.duration_s: -1 is negative"));
}

// Every numeric field, one at a time: out of range names that field.
TEST(RunSpecBounds, EveryNumericFieldIsChecked) {
  struct Case {
    const char* field;
    std::function<void(v1::RunSpec*)> set;
  };
  const Case cases[] = {
      {"tenants", [](v1::RunSpec* s) { s->set_tenants(-1); }},
      {"telemetry_hz", [](v1::RunSpec* s) { s->set_telemetry_hz(-5); }},
      {"timeout_s", [](v1::RunSpec* s) { s->set_timeout_s(-1); }},
      {"workload.batch_size",
       [](v1::RunSpec* s) { s->mutable_workload()->set_batch_size(1 << 20); }},
      {"workload.loader_workers",
       [](v1::RunSpec* s) { s->mutable_workload()->set_loader_workers(257); }},
      {"workload.threads",
       [](v1::RunSpec* s) { s->mutable_workload()->set_threads(-2); }},
      {"workload.prefetch_depth",
       [](v1::RunSpec* s) { s->mutable_workload()->set_prefetch_depth(5000); }},
      {"workload.input_size",
       [](v1::RunSpec* s) { s->mutable_workload()->set_input_size(100000); }},
      {"workload.seq_len",
       [](v1::RunSpec* s) { s->mutable_workload()->set_seq_len(5000); }},
      {"workload.vocab",
       [](v1::RunSpec* s) { s->mutable_workload()->set_vocab(-1); }},
      {"workload.epochs",
       [](v1::RunSpec* s) { s->mutable_workload()->set_epochs(2000000); }},
      {"workload.minibatches",
       [](v1::RunSpec* s) {
         s->mutable_workload()->set_minibatches(int64_t{1} << 40);
       }},
      {"workload.duration_s",
       [](v1::RunSpec* s) { s->mutable_workload()->set_duration_s(1e9); }},
      {"power_mode.cpu_cores",
       [](v1::RunSpec* s) { s->mutable_power_mode()->set_cpu_cores(5000); }},
      {"power_mode.cpu_freq_khz",
       [](v1::RunSpec* s) { s->mutable_power_mode()->set_cpu_freq_khz(-1); }},
      {"power_mode.gpu_freq_hz",
       [](v1::RunSpec* s) {
         s->mutable_power_mode()->set_gpu_freq_hz(int64_t{1} << 50);
       }},
      {"power_mode.mem_freq_hz",
       [](v1::RunSpec* s) { s->mutable_power_mode()->set_mem_freq_hz(-7); }},
  };
  for (const Case& c : cases) {
    v1::RunSpec spec = Valid();
    c.set(&spec);
    EXPECT_THAT(Message(spec), HasSubstr(std::string(c.field) + ": "))
        << c.field;
  }
}

// The values a re-audit found accepted before the table covered Settle.
TEST(RunSpecBounds, HostileSettleValuesAreRejectedWithTheFieldNamed) {
  v1::RunSpec spec = Valid();
  spec.mutable_settle()->set_seconds(std::nan(""));
  EXPECT_THAT(Message(spec),
              HasSubstr("settle.seconds: nan is not a finite number"));
  spec.mutable_settle()->set_seconds(1e308);
  EXPECT_THAT(Message(spec), HasSubstr("settle.seconds: 1e+308 is more than "
                                       "the limit of 3600"));
  spec = Valid();
  spec.mutable_settle()->set_max_wait_s(std::nan(""));
  spec.mutable_settle()->set_temp_band_c(2);
  EXPECT_THAT(Message(spec),
              HasSubstr("settle.max_wait_s: nan is not a finite number"));
  spec = Valid();
  spec.mutable_settle()->set_temp_band_c(1e-9);
  spec.mutable_settle()->set_max_wait_s(300);
  EXPECT_THAT(Message(spec),
              HasSubstr("settle.temp_band_c: 1e-09 is less than the minimum "
                        "of 0.1; 0 means no band"));
  spec.mutable_settle()->set_temp_band_c(-std::numeric_limits<double>::infinity());
  EXPECT_THAT(Message(spec),
              HasSubstr("settle.temp_band_c: -inf is not a finite number"));
}

// The settle blocks of examples/sweeps/*.yaml (as the controller fills
// them in) and the other fields the controller sets stay accepted.
TEST(RunSpecBounds, TheShippedExamplesSettleValuesAreAccepted) {
  v1::RunSpec spec = Valid();
  spec.set_sweep_id(12);
  spec.set_repetition(4);
  spec.set_attempt(2);
  spec.mutable_workload()->set_seed(18446744073709551615u);
  spec.mutable_settle()->set_seconds(1);  // twin-instances.yaml
  EXPECT_TRUE(CheckRunSpecBounds(spec).ok()) << CheckRunSpecBounds(spec);
  spec.mutable_settle()->Clear();
  spec.mutable_settle()->set_temp_band_c(2);  // variability.yaml
  spec.mutable_settle()->set_max_wait_s(300);
  EXPECT_TRUE(CheckRunSpecBounds(spec).ok()) << CheckRunSpecBounds(spec);
}

TEST(RunSpecBounds, IdsAndCountersAreChecked) {
  v1::RunSpec spec = Valid();
  spec.set_run_id(-3);
  spec.set_attempt(-1);
  const std::string m = Message(spec);
  EXPECT_THAT(m, HasSubstr("run_id: -3 is negative"));
  EXPECT_THAT(m, HasSubstr("attempt: -1 is less than the minimum of 1"));
}

TEST(RunSpecBounds, ReportsEveryProblemAtOnce) {
  v1::RunSpec spec = Valid();
  spec.set_tenants(1000);
  spec.set_timeout_s(1e308);
  const std::string m = Message(spec);
  EXPECT_THAT(m, HasSubstr("tenants: 1000"));
  EXPECT_THAT(m, HasSubstr("timeout_s: 1e+308"));
}

TEST(SecondsToNanos, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(SecondsToNanos(1.5), 1500000000);
  EXPECT_EQ(SecondsToNanos(0), 0);
  EXPECT_EQ(SecondsToNanos(-3), 0);
  EXPECT_EQ(SecondsToNanos(std::nan("")), 0);
  EXPECT_EQ(SecondsToNanos(1e308), kMaxDurationNanos);
  EXPECT_EQ(SecondsToNanos(std::numeric_limits<double>::infinity()),
            kMaxDurationNanos);
  EXPECT_EQ(SecondsToNanos(1e9), kMaxDurationNanos);  // ~31.7 years
}

}  // namespace
}  // namespace powersweep
