#include "controller/sweep/placement.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {
namespace {

// A band below a temperature sensor's step could never be met.
constexpr double kMinTempBandC = 0.1;
constexpr double kMaxTempBandC = 50;
constexpr double kMaxSettleWaitS = 86400;
constexpr double kMaxSettleSeconds = 3600;

std::string KnownIds(const std::vector<v1::DeviceStatus>& known) {
  std::vector<std::string> ids;
  for (const v1::DeviceStatus& d : known) ids.push_back(d.identity().device_id());
  std::sort(ids.begin(), ids.end());
  if (ids.empty()) return "no device is registered";
  if (ids.size() > 12) {
    const size_t more = ids.size() - 12;
    ids.resize(12);
    return absl::StrCat("known: ", absl::StrJoin(ids, ", "), " and ", more,
                        " more");
  }
  return absl::StrCat("known: ", absl::StrJoin(ids, ", "));
}

}  // namespace

v1::SweepSpec WithClassesOfDevices(const v1::SweepSpec& spec,
                                   const std::vector<v1::DeviceStatus>& known) {
  if (!spec.device_classes().empty() || spec.devices().empty()) return spec;
  v1::SweepSpec out = spec;
  std::set<std::string> seen;
  for (const std::string& id : spec.devices()) {
    for (const v1::DeviceStatus& d : known) {
      if (d.identity().device_id() != id) continue;
      if (seen.insert(d.identity().device_class()).second) {
        out.add_device_classes(d.identity().device_class());
      }
    }
  }
  return out;
}

DevicePlacement ResolvePlacement(const v1::SweepSpec& spec,
                                 const std::vector<v1::DeviceStatus>& known,
                                 std::vector<std::string>* problems) {
  auto problem = [problems](std::string text) {
    if (problems != nullptr) problems->push_back(std::move(text));
  };
  DevicePlacement out;
  out.every_device = spec.placement() == v1::PLACEMENT_EVERY_DEVICE;
  if (spec.placement() != v1::PLACEMENT_UNSPECIFIED &&
      spec.placement() != v1::PLACEMENT_ANY &&
      spec.placement() != v1::PLACEMENT_EVERY_DEVICE) {
    problem(absl::StrCat("placement: unknown value ", spec.placement(),
                         " (expected any or every_device)"));
  }
  absl::flat_hash_map<std::string, const v1::DeviceStatus*> by_id;
  for (const v1::DeviceStatus& d : known) by_id[d.identity().device_id()] = &d;
  const std::set<std::string> classes(spec.device_classes().begin(),
                                      spec.device_classes().end());
  std::set<std::string> listed;
  for (int i = 0; i < spec.devices_size(); ++i) {
    const std::string& id = spec.devices(i);
    const std::string field = absl::StrCat("devices[", i, "]");
    if (id.empty()) {
      problem(absl::StrCat(field, ": must not be empty"));
      continue;
    }
    if (!listed.insert(id).second) {
      problem(absl::StrCat(field, ": '", id, "' is listed twice"));
      continue;
    }
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      problem(absl::StrCat(field, ": unknown device '", id, "' (",
                           KnownIds(known), ")"));
      continue;
    }
    const std::string& cls = it->second->identity().device_class();
    if (classes.count(cls) == 0) {
      problem(absl::StrCat(field, ": '", id, "' is a ", cls,
                           ", not one of device_classes (",
                           absl::StrJoin(spec.device_classes(), ", "), ")"));
      continue;
    }
    out.devices[cls].push_back(id);
  }
  if (!out.every_device || !spec.devices().empty()) return out;
  // every_device without a list: the connected devices of each class.
  for (const std::string& cls : spec.device_classes()) {
    std::vector<std::string>& ids = out.devices[cls];
    for (const v1::DeviceStatus& d : known) {
      if (d.identity().device_class() == cls && d.connected()) {
        ids.push_back(d.identity().device_id());
      }
    }
    std::sort(ids.begin(), ids.end());
    if (ids.empty()) {
      problem(absl::StrCat("placement: every_device needs devices of class ",
                           cls, ": list them in devices, or connect one "
                           "(none is connected)"));
    }
  }
  return out;
}

void CheckSettle(const v1::SweepSpec& spec, std::vector<std::string>* problems) {
  if (!spec.has_settle()) return;
  const v1::Settle& s = spec.settle();
  auto check = [problems](const char* field, double value, double max) {
    if (!std::isfinite(value) || value < 0 || value > max) {
      problems->push_back(absl::StrCat("settle.", field,
                                       ": must be between 0 and ", max,
                                       ", got ", value));
      return false;
    }
    return true;
  };
  bool band_ok = check("temp_band_c", s.temp_band_c(), kMaxTempBandC);
  if (band_ok && s.temp_band_c() > 0 && s.temp_band_c() < kMinTempBandC) {
    problems->push_back(absl::StrCat(
        "settle.temp_band_c: must be 0 (no band) or at least ", kMinTempBandC,
        " C, got ", s.temp_band_c()));
    band_ok = false;
  }
  check("max_wait_s", s.max_wait_s(), kMaxSettleWaitS);
  const bool seconds_ok = check("seconds", s.seconds(), kMaxSettleSeconds);
  if (band_ok && seconds_ok && s.temp_band_c() > 0 && s.seconds() > 0) {
    problems->push_back(
        "settle: give temp_band_c (wait until cooled) or seconds (a fixed "
        "wait), not both");
  }
  if (band_ok && seconds_ok && s.temp_band_c() == 0 && s.seconds() == 0) {
    problems->push_back(
        "settle: give temp_band_c (e.g. 2: wait until within 2 C of the idle "
        "temperature) or seconds (a fixed wait)");
  }
}

}  // namespace powersweep
