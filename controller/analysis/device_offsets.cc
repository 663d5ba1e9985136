#include "controller/analysis/device_offsets.h"

#include <map>
#include <string>
#include <utility>

#include "common/status_macros.h"

namespace powersweep {
namespace {

struct Ratios {
  std::string device_class;
  double sum = 0;
  int cells = 0;
  int runs = 0;
};

// The offset metric a variability metric gives, or nullptr.
const char* OffsetMetric(VariabilityMetric m) {
  switch (m) {
    case VariabilityMetric::kMinibatchTime:
      return "time";
    case VariabilityMetric::kEnergyPerSample:
      return "energy";
    default:
      return nullptr;
  }
}

}  // namespace

std::vector<v1::DeviceOffset> DeviceOffsetsFrom(const VariabilityReport& report,
                                                int64_t sweep_id,
                                                int64_t saved_unix_ms) {
  // (device, metric) -> its ratios; std::map orders the output.
  std::map<std::pair<std::string, std::string>, Ratios> ratios;
  for (const CellVariability& cell : report.cells) {
    for (const MetricVariability& m : cell.metrics) {
      const char* metric = OffsetMetric(m.info.metric);
      if (metric == nullptr || m.devices.size() < 2) continue;
      const double class_mean = m.across.mean_of_means;
      if (!(class_mean > 0)) continue;
      for (const DeviceVariability& d : m.devices) {
        Ratios& r = ratios[{d.device_id, metric}];
        r.device_class = cell.key.device_class();
        r.sum += d.summary.mean / class_mean;
        ++r.cells;
        r.runs += d.summary.n;
      }
    }
  }
  std::vector<v1::DeviceOffset> out;
  for (const auto& [key, r] : ratios) {
    v1::DeviceOffset o;
    o.set_device_id(key.first);
    o.set_device_class(r.device_class);
    o.set_metric(key.second);
    o.set_factor(r.sum / r.cells);
    o.set_sweep_id(sweep_id);
    o.set_cells(r.cells);
    o.set_runs(r.runs);
    o.set_saved_unix_ms(saved_unix_ms);
    out.push_back(std::move(o));
  }
  return out;
}

absl::StatusOr<std::vector<v1::DeviceOffset>> SaveDeviceOffsets(
    Store* store, const VariabilityReport& report, int64_t sweep_id,
    int64_t saved_unix_ms) {
  std::vector<v1::DeviceOffset> offsets =
      DeviceOffsetsFrom(report, sweep_id, saved_unix_ms);
  if (!offsets.empty()) PS_RETURN_IF_ERROR(store->SaveDeviceOffsets(offsets));
  return offsets;
}

}  // namespace powersweep
