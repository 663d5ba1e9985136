#include "controller/cli/lab_commands.h"

#include <ostream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"

namespace powersweep {
namespace {

std::string Time(int64_t unix_ms, absl::TimeZone zone) {
  if (unix_ms <= 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixMillis(unix_ms),
                          zone);
}

std::string HealthCell(const v1::DeviceStatus& d) {
  if (!d.has_health()) return "-";
  if (d.health().healthy()) return "ok";
  return absl::StrCat("FAILING: ", d.health().reason());
}

}  // namespace

std::optional<v1::DeviceAction> ParseDeviceAction(const std::string& word) {
  if (word == "drain") return v1::DEVICE_ACTION_DRAIN;
  if (word == "undrain") return v1::DEVICE_ACTION_UNDRAIN;
  if (word == "forget") return v1::DEVICE_ACTION_FORGET;
  return std::nullopt;
}

Table DevicesTable(const v1::ListDevicesResponse& devices,
                   absl::TimeZone zone) {
  Table t;
  t.header = {"device",    "class",   "platform", "host",
              "cores",     "runtimes", "connected", "drained",
              "health",    "checked", "current_run", "last_seen",
              "disconnected"};
  t.numeric = {false, false, false, false, true,  false,
               false, false, false, false, true, false, false};
  for (const v1::DeviceStatus& d : devices.devices()) {
    std::string runtimes;
    for (int r : d.capabilities().runtimes()) {
      absl::StrAppend(&runtimes, runtimes.empty() ? "" : ",",
                      RuntimeText(static_cast<v1::Runtime>(r)));
    }
    t.rows.push_back(
        {d.identity().device_id(), d.identity().device_class(),
         d.identity().platform(), d.identity().hostname(),
         std::to_string(d.capabilities().cpu_cores()), runtimes,
         d.connected() ? "yes" : "no", d.drained() ? "yes" : "no",
         HealthCell(d), Time(d.health().checked_unix_ms(), zone),
         d.current_run_id() ? std::to_string(d.current_run_id()) : "-",
         Time(d.last_seen_unix_ms(), zone),
         // When its agent went away ("-" while connected).
         d.connected() ? "-" : Time(d.disconnected_unix_ms(), zone)});
  }
  return t;
}

int CmdDeviceState(v1::Control::StubInterface* stub, v1::DeviceAction action,
                   const std::string& device_id, const CliOptions& opt,
                   std::ostream& out, std::ostream& err) {
  v1::SetDeviceStateRequest req;
  req.set_device_id(device_id);
  req.set_action(action);
  v1::SetDeviceStateResponse resp;
  auto ctx = RpcContext();
  grpc::Status st = stub->SetDeviceState(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  out << resp.message() << "\n";
  return kExitOk;
}

int CmdRerun(v1::Control::StubInterface* stub, bool failed, bool cancelled,
             double timeout_s, const CliOptions& opt, std::ostream& out,
             std::ostream& err) {
  if (!failed && !cancelled) failed = cancelled = true;
  v1::RerunRequest req;
  req.set_sweep_id(opt.sweep_id);
  req.set_failed(failed);
  req.set_cancelled(cancelled);
  req.set_timeout_s(timeout_s);
  v1::RerunResponse resp;
  auto ctx = RpcContext();
  grpc::Status st = stub->Rerun(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  const char* which = failed && cancelled ? "failed or cancelled"
                      : failed            ? "failed"
                                          : "cancelled";
  out << "re-queued " << resp.requeued() << " " << which << " run"
      << (resp.requeued() == 1 ? "" : "s") << " of sweep " << opt.sweep_id
      << " as a new attempt";
  if (timeout_s > 0 && resp.requeued() > 0) {
    out << " with a timeout of " << timeout_s << " s";
  }
  out << "\n";
  for (const std::string& s : resp.skipped()) out << "not re-queued: " << s << "\n";
  return kExitOk;
}

}  // namespace powersweep
