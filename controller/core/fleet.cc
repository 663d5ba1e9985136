// Fleet: sessions (register, disconnect, liveness) and the device views.
// Dispatch lives in dispatch.cc, run events and batches in ingest.cc, lost
// runs in recovery.cc.
#include "controller/core/fleet.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {

Fleet::Fleet(Store* store, Clock* clock, FleetOptions options)
    : impl_(std::make_unique<Impl>(store, clock, options)) {}

Fleet::~Fleet() = default;

absl::Status Fleet::Register(const v1::Register& reg,
                             std::shared_ptr<AgentConnection> conn) {
  const std::string& device_id = reg.identity().device_id();
  if (device_id.empty()) {
    return absl::InvalidArgumentError(
        "register: identity.device_id must not be empty");
  }
  if (reg.identity().device_class().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("register of ", device_id,
                     ": identity.device_class must not be empty"));
  }
  if (conn == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("register of ", device_id, ": no connection"));
  }
  Impl& im = *impl_;
  std::shared_ptr<AgentConnection> replaced;
  Outbox out;
  {
    absl::MutexLock lock(&im.run_mu);
    const absl::Time now = im.clock->Now();
    absl::Status st =
        im.store->UpsertDevice(reg.identity(), reg.capabilities(), now);
    if (!st.ok()) return st;

    AgentEntry entry;
    entry.identity = reg.identity();
    entry.capabilities = reg.capabilities();
    entry.conn = conn;
    entry.last_message = now;
    replaced = im.registry.Put(std::move(entry));
    PS_LOG(INFO) << "registered " << device_id << " ("
                 << reg.identity().device_class() << ", "
                 << reg.capabilities().cpu_cores() << " cores)"
                 << (replaced ? ", replacing its previous session" : "");

    v1::ControllerMessage hello;
    hello.mutable_registered()->set_device_id(device_id);
    hello.mutable_registered()->set_heartbeat_interval_s(
        absl::ToDoubleSeconds(im.options.heartbeat_interval));
    if (!conn->Send(hello)) {
      PS_LOG(WARNING) << "could not send registered to " << device_id;
    }

    // Reconcile what the store believes this device is doing.
    bool kept = false;
    absl::StatusOr<std::vector<v1::RunStatus>> active =
        im.store->ListActiveRuns(device_id);
    if (!active.ok()) {
      PS_LOG(ERROR) << "cannot list active runs of " << device_id << ": "
                    << active.status();
    } else {
      for (const v1::RunStatus& run : *active) {
        const int64_t run_id = run.spec().run_id();
        if (run_id == reg.active_run_id() && !kept) {
          im.registry.SetCurrentRun(device_id, conn.get(), run_id);
          kept = true;
          PS_LOG(INFO) << device_id << " still runs run " << run_id
                       << "; it continues";
        } else {
          im.ReleaseLostRun(run, device_id,
                            absl::StrCat("agent ", device_id, " restarted"),
                            absl::StrCat("agent ", device_id,
                                         " restarted; the run was lost"));
        }
      }
    }
    if (reg.active_run_id() != 0 && !kept) {
      Outgoing cancel{device_id, conn, {}};
      cancel.msg.mutable_cancel()->set_run_id(reg.active_run_id());
      cancel.msg.mutable_cancel()->set_reason(
          absl::StrCat("the controller no longer holds run ",
                       reg.active_run_id(), " for ", device_id));
      PS_LOG(INFO) << device_id << " reports run " << reg.active_run_id()
                   << " active, which it no longer holds; cancelling it";
      out.push_back(std::move(cancel));
    }
    im.DispatchLocked(&out);
  }
  if (replaced != nullptr && replaced != conn) replaced->Close();
  im.Flush(std::move(out));
  return absl::OkStatus();
}

void Fleet::HandleMessage(const std::string& device_id,
                          const v1::AgentMessage& msg) {
  Impl& im = *impl_;
  if (!im.registry.Touch(device_id, im.clock->Now())) {
    PS_LOG(WARNING) << "dropping a message from " << device_id
                    << ", which is not registered";
    return;
  }
  int64_t run_id = 0;
  if (msg.has_run_started()) run_id = msg.run_started().run_id();
  if (msg.has_batch()) run_id = msg.batch().run_id();
  if (msg.has_run_finished()) run_id = msg.run_finished().result().run_id();
  if ((msg.has_run_started() || msg.has_batch() || msg.has_run_finished()) &&
      run_id <= 0) {
    PS_LOG(WARNING) << "ignoring a run message without run_id from "
                    << device_id;
    return;
  }
  switch (msg.msg_case()) {
    case v1::AgentMessage::kHeartbeat:
      break;
    case v1::AgentMessage::kRunStarted:
      im.OnRunStarted(device_id, msg.run_started());
      break;
    case v1::AgentMessage::kBatch:
      im.OnBatch(device_id, msg.batch());
      break;
    case v1::AgentMessage::kRunFinished:
      im.OnRunFinished(device_id, msg.run_finished());
      break;
    case v1::AgentMessage::kRegister:
      PS_LOG(WARNING) << "ignoring a second register from " << device_id
                      << " within one session";
      break;
    case v1::AgentMessage::MSG_NOT_SET:
      PS_LOG(WARNING) << "ignoring an empty message from " << device_id;
      break;
  }
}

void Fleet::Disconnect(const std::string& device_id,
                       const AgentConnection* conn) {
  impl_->EndSession(device_id, conn,
                    absl::StrCat("agent ", device_id, " disconnected"));
}

void Fleet::Dispatch() {
  Impl& im = *impl_;
  Outbox out;
  {
    absl::MutexLock lock(&im.run_mu);
    im.DispatchLocked(&out);
  }
  im.Flush(std::move(out));
}

void Fleet::CheckLiveness() {
  Impl& im = *impl_;
  const absl::Duration limit = 3 * im.options.heartbeat_interval;
  for (const AgentEntry& silent :
       im.registry.SilentSince(im.clock->Now() - limit)) {
    PS_LOG(INFO) << silent.identity.device_id() << " sent nothing for "
                 << absl::FormatDuration(limit) << "; closing its session";
    silent.conn->Close();
    im.EndSession(silent.identity.device_id(), silent.conn.get(),
                  absl::StrCat("agent ", silent.identity.device_id(),
                               " disconnected (silent for ",
                               absl::FormatDuration(limit), ")"));
  }
}

absl::StatusOr<std::vector<v1::DeviceStatus>> Fleet::ListDevices() {
  absl::StatusOr<std::vector<v1::DeviceStatus>> devices =
      impl_->store->ListDevices();
  if (!devices.ok()) return devices.status();
  std::map<std::string, AgentEntry> connected;
  for (AgentEntry& e : impl_->registry.Snapshot()) {
    connected.emplace(e.identity.device_id(), std::move(e));
  }
  for (v1::DeviceStatus& d : *devices) {
    auto it = connected.find(d.identity().device_id());
    d.set_connected(it != connected.end());
    d.set_current_run_id(0);
    if (it == connected.end()) continue;
    d.set_current_run_id(it->second.current_run_id);
    d.set_last_seen_unix_ms(std::max(
        d.last_seen_unix_ms(), absl::ToUnixMillis(it->second.last_message)));
  }
  return devices;
}

std::vector<v1::DeviceStatus> Fleet::ConnectedDevices() {
  std::vector<v1::DeviceStatus> out;
  for (const AgentEntry& e : impl_->registry.Snapshot()) {
    v1::DeviceStatus d;
    *d.mutable_identity() = e.identity;
    *d.mutable_capabilities() = e.capabilities;
    d.set_connected(true);
    d.set_current_run_id(e.current_run_id);
    d.set_last_seen_unix_ms(absl::ToUnixMillis(e.last_message));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace powersweep
