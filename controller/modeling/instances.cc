#include "controller/modeling/instances.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace powersweep::modeling {
namespace {

constexpr char kTime[] = "time";
constexpr char kEnergy[] = "energy";

// device -> metric -> offset
using OffsetIndex =
    std::map<std::string, std::map<std::string, const v1::DeviceOffset*>>;

OffsetIndex Index(const std::vector<v1::DeviceOffset>& offsets) {
  OffsetIndex out;
  for (const v1::DeviceOffset& o : offsets) out[o.device_id()][o.metric()] = &o;
  return out;
}

}  // namespace

absl::StatusOr<Instances> ParseInstances(const std::string& text) {
  if (text.empty() || text == "pooled") return Instances::kPooled;
  if (text == "offsets") return Instances::kOffsets;
  if (text == "per_device" || text == "per-device") return Instances::kPerDevice;
  return absl::InvalidArgumentError(absl::StrCat(
      "instances: expected pooled, offsets or per_device, got '", text, "'"));
}

std::string InstancesName(Instances i) {
  switch (i) {
    case Instances::kPooled:
      return "pooled";
    case Instances::kOffsets:
      return "offsets";
    case Instances::kPerDevice:
      return "device";
  }
  return "pooled";
}

absl::StatusOr<std::vector<InstanceGroup>> InstanceGroups(
    const std::vector<ObservationGroup>& groups, Instances how,
    const std::vector<v1::DeviceOffset>& offsets) {
  std::vector<InstanceGroup> out;
  if (how == Instances::kPooled) {
    for (const ObservationGroup& g : groups) {
      InstanceGroup& ig = out.emplace_back();
      ig.group = g;
      std::map<std::string, int> devices;
      for (const RunObservation& r : g.runs) ++devices[r.device_id];
      if (devices.size() > 1) {
        ig.notes.push_back(absl::StrCat(
            "instances pooled: the runs of ", devices.size(),
            " devices are fitted as one class (fit with instances offsets or "
            "per_device to tell them apart)"));
      }
    }
    return out;
  }
  if (how == Instances::kPerDevice) {
    for (const ObservationGroup& g : groups) {
      std::map<std::string, ObservationGroup> by_device;
      for (const RunObservation& r : g.runs) {
        ObservationGroup& d = by_device[r.device_id];
        if (d.runs.empty()) {
          d.key = g.key;
          d.epoch = g.epoch;
          d.devices = g.devices;
        }
        d.runs.push_back(r);
      }
      for (auto& [device, group] : by_device) {
        InstanceGroup& ig = out.emplace_back();
        ig.group = std::move(group);
        ig.device_id = device;
        ig.notes.push_back(
            absl::StrCat("instances per device: only the runs of ", device));
      }
    }
    return out;
  }
  if (offsets.empty()) {
    return absl::FailedPreconditionError(
        "instances offsets: no calibration offsets are stored; measure them "
        "with `powersweep variability --sweep ID --save-offsets` first");
  }
  const OffsetIndex index = Index(offsets);
  for (const ObservationGroup& g : groups) {
    InstanceGroup& ig = out.emplace_back();
    ig.group = g;
    std::map<std::string, bool> seen;  // device -> has offsets
    for (RunObservation& r : ig.group.runs) {
      auto it = index.find(r.device_id);
      const bool has = it != index.end();
      if (seen.emplace(r.device_id, has).second && has) {
        for (const auto& [metric, o] : it->second) ig.applied.push_back(*o);
      }
      if (!has) continue;
      auto time = it->second.find(kTime);
      if (time != it->second.end()) r.epoch_time_s /= time->second->factor();
      auto energy = it->second.find(kEnergy);
      if (energy != it->second.end() && r.epoch_energy_j > 0) {
        r.epoch_energy_j /= energy->second->factor();
      }
    }
    std::vector<std::string> without;
    for (const auto& [device, has] : seen) {
      if (!has) without.push_back(device);
    }
    ig.notes.push_back(absl::StrCat(
        "instances offsets: each run divided by its device's calibration "
        "offsets (", seen.size() - without.size(), " of ", seen.size(),
        " devices have them)"));
    if (!without.empty()) {
      ig.notes.push_back(absl::StrCat("no calibration offsets for ",
                                      absl::StrJoin(without, ", "),
                                      ": their runs are used as measured"));
    }
  }
  return out;
}

absl::StatusOr<DeviceScale> ScaleOf(
    const std::string& device_id,
    const std::vector<v1::DeviceOffset>& offsets) {
  DeviceScale s;
  bool any = false;
  for (const v1::DeviceOffset& o : offsets) {
    if (o.device_id() != device_id) continue;
    if (o.metric() == kTime) {
      s.time = o.factor();
      any = true;
    } else if (o.metric() == kEnergy) {
      s.energy = o.factor();
      any = true;
    }
  }
  if (!any) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device ", device_id, ": no model fitted on its runs alone and no "
        "calibration offsets stored for it (measure them with `powersweep "
        "variability --sweep ID --save-offsets`, or fit with --instances "
        "per_device)"));
  }
  s.note = absl::StrFormat(
      "calibration offsets of %s applied (to predictions and to the class's "
      "measured means): time x%.3f, energy x%.3f",
      device_id,
      s.time, s.energy);
  return s;
}

void ApplyScale(const DeviceScale& scale, ModePrediction* p) {
  const double power = scale.energy / scale.time;
  p->time_s *= scale.time;
  p->time_lo_s *= scale.time;
  p->time_hi_s *= scale.time;
  p->energy_j *= scale.energy;
  p->energy_lo_j *= scale.energy;
  p->energy_hi_j *= scale.energy;
  p->power_w *= power;
  p->power_lo_w *= power;
  p->power_hi_w *= power;
}

}  // namespace powersweep::modeling
