#include "agent/metrics/agent_metrics_page.h"

#include "common/enum_text.h"
#include "common/metrics/exposition.h"

namespace powersweep {

std::string RenderAgentMetrics(const v1::DeviceIdentity& identity,
                               const AgentStatus& status,
                               const Reading& reading, int64_t now_mono_ns) {
  ExpositionWriter w;
  w.Begin("powersweep_agent_info", MetricType::kGauge,
          "The agent's device (always 1).");
  w.Sample({{"device_id", identity.device_id()},
            {"device_class", identity.device_class()},
            {"platform", identity.platform()},
            {"agent_version", identity.agent_version()}},
           1);
  w.Begin("powersweep_agent_connected", MetricType::kGauge,
          "1 while the agent's session to the controller is registered.");
  w.Sample(status.connected ? 1 : 0);
  w.Begin("powersweep_agent_registrations_total", MetricType::kCounter,
          "Successful registrations with the controller since the agent "
          "started (more than 1: it reconnected).");
  w.Sample(static_cast<double>(status.registrations));
  w.Begin("powersweep_agent_run_active", MetricType::kGauge,
          "1 while the agent executes a run.");
  w.Sample(status.run_id != 0 ? 1 : 0);
  w.Begin("powersweep_agent_run_id", MetricType::kGauge,
          "The run the agent executes; 0 when idle.");
  w.Sample(static_cast<double>(status.run_id));
  w.Begin("powersweep_agent_spooled_messages", MetricType::kGauge,
          "Data batches and run results not yet acknowledged by the "
          "controller.");
  w.Sample(static_cast<double>(status.spooled));
  if (status.healthy.has_value()) {
    w.Begin("powersweep_agent_healthy", MetricType::kGauge,
            "1 when the agent's latest health check passed (sensors answer, "
            "power rails read, board below --health_max_temp_c), 0 when it "
            "failed; the controller dispatches no runs to a failing agent.");
    w.Sample(*status.healthy ? 1 : 0);
  }
  w.Begin("powersweep_agent_run_samples_total", MetricType::kCounter,
          "Telemetry samples of the runs the agent executed.");
  w.Sample(static_cast<double>(reading.samples));
  if (!reading.present) return w.text();

  w.Begin("powersweep_agent_reading_age_seconds", MetricType::kGauge,
          "Seconds since the reading below was taken (it is refreshed by "
          "every run sample, and by the health check of every heartbeat "
          "while idle).");
  w.Sample(static_cast<double>(now_mono_ns - reading.observed_mono_ns) * 1e-9);
  if (reading.power_w > 0) {
    w.Begin("powersweep_agent_power_watts", MetricType::kGauge,
            "Board power (W) and where it came from: measured, modeled or "
            "simulated (a twin).");
    w.Sample({{"provenance", ProvenanceText(reading.power_provenance)}},
             reading.power_w);
  }
  if (!reading.rails.empty()) {
    w.Begin("powersweep_agent_rail_power_watts", MetricType::kGauge,
            "Power of each rail (W).");
    for (const Reading::Rail& r : reading.rails) {
      w.Sample({{"rail", r.name}, {"provenance", ProvenanceText(r.provenance)}},
               r.power_w);
    }
  }
  if (!reading.temperatures_c.empty()) {
    w.Begin("powersweep_agent_temperature_celsius", MetricType::kGauge,
            "Temperature of each sensor (degrees C).");
    for (const auto& [sensor, celsius] : reading.temperatures_c) {
      w.Sample({{"sensor", sensor}}, celsius);
    }
  }
  if (reading.cpu_freq_hz > 0) {
    w.Begin("powersweep_agent_cpu_frequency_hertz", MetricType::kGauge,
            "CPU clock (Hz): the highest of the sampled cores.");
    w.Sample(static_cast<double>(reading.cpu_freq_hz));
  }
  if (reading.gpu_freq_hz > 0) {
    w.Begin("powersweep_agent_gpu_frequency_hertz", MetricType::kGauge,
            "GPU clock (Hz).");
    w.Sample(static_cast<double>(reading.gpu_freq_hz));
    w.Begin("powersweep_agent_gpu_utilization", MetricType::kGauge,
            "GPU busy fraction, 0..1.");
    w.Sample(reading.gpu_util);
  }
  if (reading.mem_freq_hz > 0) {
    w.Begin("powersweep_agent_emc_frequency_hertz", MetricType::kGauge,
            "Memory (EMC) clock (Hz).");
    w.Sample(static_cast<double>(reading.mem_freq_hz));
  }
  return w.text();
}

}  // namespace powersweep
