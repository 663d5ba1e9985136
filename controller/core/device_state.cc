// Fleet::SetDeviceState: operators drain, undrain and forget devices. The
// marks live in the store (devices table, schema 11), in Impl's sets (for
// registrations) and on the connected session (registry: dispatch skips a
// drained device).
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {

absl::StatusOr<std::string> Fleet::SetDeviceState(const std::string& device_id,
                                                  v1::DeviceAction action) {
  if (device_id.empty()) {
    return absl::InvalidArgumentError(
        "device_id: required (see `powersweep devices`)");
  }
  if (action != v1::DEVICE_ACTION_DRAIN &&
      action != v1::DEVICE_ACTION_UNDRAIN &&
      action != v1::DEVICE_ACTION_FORGET) {
    return absl::InvalidArgumentError(
        absl::StrCat("action: ", static_cast<int>(action),
                     " is not drain, undrain or forget"));
  }
  Impl& im = *impl_;
  Outbox out;
  std::string message;
  {
    absl::MutexLock lock(&im.run_mu);
    PS_RETURN_IF_ERROR(im.LoadDevicesLocked());
    if (im.known_devices.count(device_id) == 0 ||
        im.forgotten_devices.count(device_id) > 0) {
      return absl::NotFoundError(absl::StrCat(
          "unknown device '", device_id,
          "' (see `powersweep devices` for the registered ones)"));
    }
    const std::optional<int64_t> held = im.registry.CurrentRun(device_id);
    const bool drained = im.drained_devices.count(device_id) > 0;
    switch (action) {
      case v1::DEVICE_ACTION_DRAIN:
        PS_RETURN_IF_ERROR(im.store->SetDeviceDrained(device_id, true));
        im.drained_devices.insert(device_id);
        im.registry.SetDrained(device_id, true);
        message = absl::StrCat("device ", device_id,
                               " drained: it takes no new runs");
        if (held.value_or(0) != 0) {
          absl::StrAppend(&message, "; its run ", *held,
                          " finishes normally");
        }
        break;
      case v1::DEVICE_ACTION_UNDRAIN:
        PS_RETURN_IF_ERROR(im.store->SetDeviceDrained(device_id, false));
        im.drained_devices.erase(device_id);
        im.registry.SetDrained(device_id, false);
        message = absl::StrCat("device ", device_id,
                               " undrained: it takes runs again");
        im.DispatchLocked(&out, device_id);
        break;
      default:  // DEVICE_ACTION_FORGET
        if (held.has_value() && !drained) {
          return absl::FailedPreconditionError(
              absl::StrCat("device ", device_id,
                           " is connected; stop its agent or drain it first"));
        }
        PS_RETURN_IF_ERROR(im.store->SetDeviceForgotten(device_id, true));
        im.forgotten_devices.insert(device_id);
        message = absl::StrCat(
            "device ", device_id,
            " forgotten: it is no longer listed nor used to validate "
            "sweeps; its runs and data stay, and it is listed again when "
            "its agent registers");
        break;
    }
    PS_LOG(INFO) << message;
  }
  im.Flush(std::move(out));
  return message;
}

}  // namespace powersweep
