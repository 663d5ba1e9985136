// Fleet: sessions (register, disconnect, liveness) and the device views.
// What agents report is reconciled in reconcile.cc, dispatch lives in
// dispatch.cc, run events and batches in ingest.cc, lost runs, leases and
// orphans in recovery.cc.
#include "controller/core/fleet.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {

Fleet::Fleet(Store* store, Clock* clock, FleetOptions options)
    : impl_(std::make_unique<Impl>(store, clock, options)) {}

Fleet::~Fleet() = default;

namespace {

std::string NewResumeToken() {
  absl::BitGen gen;
  return absl::StrFormat("%016x%016x", absl::Uniform<uint64_t>(gen),
                         absl::Uniform<uint64_t>(gen));
}

}  // namespace

absl::Status Fleet::Register(const v1::Register& reg,
                             std::shared_ptr<AgentConnection> conn,
                             bool identity_verified) {
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
    std::optional<AgentEntry> live = im.registry.Get(device_id);
    if (live.has_value() && live->conn != conn && !identity_verified &&
        (reg.resume_token().empty() ||
         reg.resume_token() != live->resume_token)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "device ", device_id,
          " already has a live session; a new session needs that session's "
          "resume token or a certificate for ", device_id,
          " (if the agent restarted, it is accepted once the old session "
          "ends or stays silent for ",
          absl::FormatDuration(3 * im.options.heartbeat_interval), ")"));
    }
    if (!live.has_value() &&
        im.registry.size() >= static_cast<size_t>(im.options.max_sessions)) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "register of ", device_id, ": ", im.options.max_sessions,
          " agents are connected, the most --max_sessions allows"));
    }
    PS_RETURN_IF_ERROR(im.LoadDevicesLocked());
    const bool is_new = im.known_devices.count(device_id) == 0;
    const size_t confirmed = im.known_devices.size() - im.unconfirmed.size();
    if (is_new && identity_verified &&
        confirmed >= static_cast<size_t>(im.options.max_devices)) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "register of ", device_id, ": the controller already knows ",
          confirmed, " devices, the most --max_devices allows"));
    }
    if (is_new && !identity_verified &&
        im.unconfirmed.size() >= static_cast<size_t>(im.options.max_devices)) {
      // Room from disconnected ones first (registrations alone: junk).
      im.ExpireUnconfirmedLocked(im.clock->Now(), /*make_room=*/1);
      if (im.unconfirmed.size() >= static_cast<size_t>(im.options.max_devices)) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "register of ", device_id, ": ", im.unconfirmed.size(),
            " connected devices registered without a certificate and have "
            "not run anything yet, the most --max_devices allows (serve "
            "TLS so that devices prove who they are)"));
      }
    }
    const absl::Time now = im.clock->Now();
    PS_RETURN_IF_ERROR(
        im.store->UpsertDevice(reg.identity(), reg.capabilities(), now));
    im.known_devices.insert(device_id);
    if (identity_verified) {
      im.unconfirmed.erase(device_id);
    } else if (is_new || im.unconfirmed.count(device_id) > 0) {
      im.unconfirmed[device_id] = absl::InfiniteFuture();
    }
    if (im.forgotten_devices.erase(device_id) > 0) {
      PS_LOG(INFO) << "device " << device_id << " was forgotten and its agent "
                   << "registered again: it is listed again";
    }

    AgentEntry entry;
    entry.identity = reg.identity();
    entry.capabilities = reg.capabilities();
    entry.conn = conn;
    entry.last_message = now;
    entry.resume_token = NewResumeToken();
    entry.drained = im.drained_devices.count(device_id) > 0;
    if (reg.has_health()) entry.health = reg.health();
    const std::string token = entry.resume_token;
    replaced = im.registry.Put(std::move(entry));
    PS_LOG(INFO) << "registered " << device_id << " ("
                 << reg.identity().device_class() << ", "
                 << reg.capabilities().cpu_cores() << " cores)"
                 << (replaced ? ", replacing its previous session" : "")
                 << (im.drained_devices.count(device_id) > 0
                         ? "; drained: it takes no new runs"
                         : "");
    if (reg.has_health()) {
      im.SaveHealthLocked(device_id, std::nullopt, reg.health());
    }

    v1::ControllerMessage hello;
    hello.mutable_registered()->set_device_id(device_id);
    hello.mutable_registered()->set_heartbeat_interval_s(
        absl::ToDoubleSeconds(im.options.heartbeat_interval));
    hello.mutable_registered()->set_resume_token(token);
    hello.mutable_registered()->set_ack_timeout_s(
        absl::ToDoubleSeconds(im.options.ack_timeout));
    hello.mutable_registered()->set_database_id(im.database_id);
    if (!conn->Send(hello)) {
      PS_LOG(WARNING) << "could not send registered to " << device_id;
    }
    im.ReconcileRegister(reg, conn, &out);
    im.DispatchLocked(&out, device_id);
  }
  if (replaced != nullptr && replaced != conn) replaced->Close();
  im.Flush(std::move(out));
  return absl::OkStatus();
}

void Fleet::HandleMessage(const std::string& device_id,
                          const AgentConnection* conn,
                          const v1::AgentMessage& msg) {
  Impl& im = *impl_;
  if (!im.registry.View(device_id, conn).has_value()) {
    PS_LOG(WARNING) << "dropping a message from a session of " << device_id
                    << " that is not its current one";
    return;
  }
  // Heard from now; and not silent while the message is handled (a store
  // write may wait seconds for the database), heard again when done.
  im.registry.Touch(device_id, conn, im.clock->Now(), +1);
  absl::Cleanup handled = [&im, &device_id, conn] {
    im.registry.Touch(device_id, conn, im.clock->Now(), -1);
  };
  int64_t run_id = 0;
  if (msg.has_run_started()) run_id = msg.run_started().run_id();
  if (msg.has_batch()) run_id = msg.batch().run_id();
  if (msg.has_run_finished()) run_id = msg.run_finished().result().run_id();
  if (msg.has_assign_reply()) run_id = msg.assign_reply().run_id();
  if ((msg.has_run_started() || msg.has_batch() || msg.has_run_finished() ||
       msg.has_assign_reply()) &&
      run_id <= 0) {
    PS_LOG(WARNING) << "ignoring a run message without run_id from "
                    << device_id;
    return;
  }
  switch (msg.msg_case()) {
    case v1::AgentMessage::kHeartbeat:
      im.OnHeartbeat(device_id, conn, msg.heartbeat());
      break;
    case v1::AgentMessage::kAssignReply:
      im.OnAssignReply(device_id, conn, msg.assign_reply());
      break;
    case v1::AgentMessage::kRunStarted:
      im.OnRunStarted(device_id, conn, msg.run_started());
      break;
    case v1::AgentMessage::kBatch:
      im.OnBatch(device_id, conn, msg.batch());
      break;
    case v1::AgentMessage::kRunFinished:
      im.OnRunFinished(device_id, conn, msg.run_finished());
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

absl::Status Fleet::Impl::LoadDevicesLocked() {
  if (devices_loaded) return absl::OkStatus();
  PS_ASSIGN_OR_RETURN(std::vector<v1::DeviceStatus> known, store->ListDevices());
  for (const v1::DeviceStatus& d : known) {
    const std::string& id = d.identity().device_id();
    known_devices.insert(id);
    if (d.drained()) drained_devices.insert(id);
    if (d.forgotten()) forgotten_devices.insert(id);
  }
  PS_ASSIGN_OR_RETURN(std::vector<std::string> unused,
                      store->ListUnusedDevices());
  const absl::Time now = clock->Now();
  for (const std::string& id : unused) unconfirmed[id] = now;
  PS_ASSIGN_OR_RETURN(database_id, store->GetDatabaseId());
  devices_loaded = true;
  return absl::OkStatus();
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

void Fleet::NoteStall(absl::Duration gap) {
  Impl& im = *impl_;
  const absl::Duration grace = 3 * im.options.heartbeat_interval;
  im.judge_after_unix_ns.store(absl::ToUnixNanos(im.clock->Now() + grace),
                               std::memory_order_relaxed);
  PS_LOG(WARNING) << "the controller did not run for "
                  << absl::FormatDuration(gap)
                  << " (paused or starved); every agent gets "
                  << absl::FormatDuration(grace)
                  << " before it is judged silent";
}

void Fleet::CheckLiveness() {
  Impl& im = *impl_;
  const absl::Duration limit = 3 * im.options.heartbeat_interval;
  if (absl::ToUnixNanos(im.clock->Now()) <
      im.judge_after_unix_ns.load(std::memory_order_relaxed)) {
    return;
  }
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
  for (const AgentEntry& stalled :
       im.registry.StalledWriters(im.options.write_timeout)) {
    const std::string& id = stalled.identity.device_id();
    PS_LOG(WARNING) << id << " has not read its stream for "
                    << absl::FormatDuration(im.options.write_timeout)
                    << "; closing its session";
    stalled.conn->Close();
    im.EndSession(id, stalled.conn.get(),
                  absl::StrCat("agent ", id,
                               " stopped reading its stream (a write waited "
                               "more than ",
                               absl::FormatDuration(im.options.write_timeout),
                               ")"));
  }
  Outbox out;
  im.ReleaseExpiredLeases(&out);
  im.Flush(std::move(out));
  im.ReleaseOrphans();
}

absl::StatusOr<std::vector<v1::DeviceStatus>> Fleet::ListDevices() {
  PS_ASSIGN_OR_RETURN(std::vector<v1::DeviceStatus> devices,
                      impl_->store->ListDevices());
  std::map<std::string, AgentEntry> connected;
  for (AgentEntry& e : impl_->registry.Snapshot()) {
    connected.emplace(e.identity.device_id(), std::move(e));
  }
  std::vector<v1::DeviceStatus> listed;
  listed.reserve(devices.size());
  for (v1::DeviceStatus& d : devices) {
    if (d.forgotten()) continue;
    auto it = connected.find(d.identity().device_id());
    d.set_connected(it != connected.end());
    d.set_current_run_id(0);
    if (it != connected.end()) {
      const AgentEntry& e = it->second;
      d.clear_disconnected_unix_ms();
      d.set_current_run_id(e.current_run_id);
      d.set_last_seen_unix_ms(std::max(d.last_seen_unix_ms(),
                                       absl::ToUnixMillis(e.last_message)));
      // The latest check (the store keeps only changes).
      if (e.health.has_value()) *d.mutable_health() = *e.health;
      if (e.latest != nullptr) {
        *d.mutable_latest() = *e.latest;
        d.set_latest_unix_ms(absl::ToUnixMillis(e.latest_at));
      }
    }
    listed.push_back(std::move(d));
  }
  return listed;
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

const FleetCounters& Fleet::counters() const { return impl_->counters; }

AgentCounts Fleet::CountAgents() const { return impl_->registry.Counts(); }

}  // namespace powersweep
