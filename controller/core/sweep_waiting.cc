#include "controller/core/sweep_waiting.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace powersweep {
namespace {

// Why `d` takes no run now; "" when it could.
std::string Unavailable(const v1::DeviceStatus& d, absl::Time now) {
  const std::string& id = d.identity().device_id();
  if (!d.connected()) {
    if (d.disconnected_unix_ms() > 0) {
      const absl::Duration ago = absl::Trunc(
          now - absl::FromUnixMillis(d.disconnected_unix_ms()), absl::Seconds(1));
      return absl::StrCat(id, " is offline (disconnected ",
                          absl::FormatDuration(std::max(ago, absl::ZeroDuration())),
                          " ago)");
    }
    return absl::StrCat(id, " is offline");
  }
  if (d.drained()) return absl::StrCat(id, " is drained");
  if (d.has_health() && !d.health().healthy()) {
    return absl::StrCat(id, " is failing its health check (",
                        d.health().reason(), ")");
  }
  return "";
}

// "a xavier-nx", "an orin-agx".
std::string Article(const std::string& cls) {
  const bool vowel = !cls.empty() && std::string("aeiou").find(cls[0]) !=
                                         std::string::npos;
  return absl::StrCat(vowel ? "an " : "a ", cls);
}

std::string Runs(int n) {
  return n == 1 ? "1 run waits" : absl::StrCat(n, " runs wait");
}

}  // namespace

std::vector<std::string> WaitingReasons(
    const std::vector<v1::RunSpec>& pending,
    const std::vector<v1::DeviceStatus>& devices, absl::Time now) {
  // Runs by what they wait for: a class, or the devices they are placed on.
  std::map<std::pair<std::string, std::string>, int> groups;
  for (const v1::RunSpec& r : pending) {
    groups[{r.device_class(), absl::StrJoin(r.devices(), ",")}]++;
  }
  std::map<std::string, const v1::DeviceStatus*> by_id;
  for (const v1::DeviceStatus& d : devices) {
    if (!d.forgotten()) by_id[d.identity().device_id()] = &d;
  }
  std::vector<std::string> out;
  for (const auto& [key, n] : groups) {
    const auto& [cls, placed] = key;
    std::vector<const v1::DeviceStatus*> candidates;
    std::vector<std::string> unknown;
    if (placed.empty()) {
      for (const auto& [id, d] : by_id) {
        if (d->identity().device_class() == cls) candidates.push_back(d);
      }
    } else {
      for (absl::string_view id : absl::StrSplit(placed, ',')) {
        auto it = by_id.find(std::string(id));
        if (it == by_id.end()) {
          unknown.push_back(absl::StrCat(id, " is not registered"));
        } else {
          candidates.push_back(it->second);
        }
      }
    }
    const std::string target =
        placed.empty() ? Article(cls)
                       : absl::StrReplaceAll(placed, {{",", " or "}});
    if (candidates.empty() && unknown.empty()) {
      out.push_back(absl::StrCat(Runs(n), " for ", target, ": no ", cls,
                                 " device is registered"));
      continue;
    }
    std::vector<std::string> why = unknown;
    bool available = false;
    for (const v1::DeviceStatus* d : candidates) {
      const std::string reason = Unavailable(*d, now);
      if (reason.empty()) {
        available = true;
        break;
      }
      why.push_back(reason);
    }
    if (available) continue;  // busy or about to be dispatched
    out.push_back(
        absl::StrCat(Runs(n), " for ", target, ": ", absl::StrJoin(why, ", ")));
  }
  return out;
}

}  // namespace powersweep
