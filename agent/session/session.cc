#include "agent/session/session.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "agent/run/capabilities.h"
#include "common/log.h"

namespace powersweep {

namespace {
constexpr absl::Duration kStep = absl::Milliseconds(20);
// How long one connection attempt may take (gRPC's own default).
constexpr int kConnectTimeoutMs = 20000;
}  // namespace

Session::Session(SessionConfig config, Platform* platform,
                 RunExecutor* executor, Clock* clock,
                 std::unique_ptr<Spool> spool)
    : config_(std::move(config)),
      platform_(platform),
      executor_(executor),
      clock_(clock),
      spool_(spool != nullptr ? std::move(spool) : std::make_unique<Spool>()) {
  heartbeat_s_ = config_.default_heartbeat_s;
  ack_timeout_s_ = config_.ack_timeout_s;
}

std::unique_ptr<v1::AgentGateway::Stub> Session::MakeStub() const {
  grpc::ChannelArguments args;
  // A channel of its own for every connection attempt (no subchannel shared
  // with an earlier one): the attempt connects now, whatever gRPC's backoff
  // of the last one, so the loop in Run() alone paces the attempts. With
  // one channel for the whole life of the agent, a restarted controller
  // went on getting "Connection refused" from it for 2.5 s or more after
  // it listened again.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // Each attempt gets time for its handshake: this argument is gRPC's
  // minimum connect timeout (MIN_CONNECT_TIMEOUT of its connection-backoff
  // protocol), not a backoff. Set to the initial backoff, a controller slow
  // to answer the handshake (restarting, the fleet reconnecting at once)
  // saw every attempt cut short and never got the agent.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, kConnectTimeoutMs);
  // Notice a dead controller (or path) even while only receiving.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 20000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  if (config_.credentials != nullptr && !config_.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(config_.tls_server_name);
  }
  std::shared_ptr<grpc::ChannelCredentials> creds =
      config_.credentials != nullptr ? config_.credentials
                                     : grpc::InsecureChannelCredentials();
  return v1::AgentGateway::NewStub(
      grpc::CreateCustomChannel(config_.controller, creds, args));
}

Session::~Session() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    shutdown_ = true;
    if (ctx_ != nullptr) ctx_->TryCancel();
  }
  executor_->Cancel(0, "agent shutting down");
  std::thread worker, reboot;
  {
    absl::MutexLock lock(&mu_);
    worker = std::move(worker_);
    reboot = std::move(reboot_);
  }
  if (worker.joinable()) worker.join();
  if (reboot.joinable()) reboot.join();
  if (timer_.joinable()) timer_.join();
  {
    absl::MutexLock lock(&out_mu_);
    sender_stop_ = true;
  }
  if (sender_.joinable()) sender_.join();
}

bool Session::shutdown() const {
  absl::MutexLock lock(&mu_);
  return shutdown_;
}

int64_t Session::registrations() const {
  absl::MutexLock lock(&mu_);
  return registrations_;
}

bool Session::connected() const {
  absl::MutexLock lock(&mu_);
  return connected_;
}

void Session::SleepUnlessShutdown(absl::Duration d) {
  const int64_t end = clock_->MonotonicNanos() + absl::ToInt64Nanoseconds(d);
  while (!shutdown()) {
    int64_t left = end - clock_->MonotonicNanos();
    if (left <= 0) return;
    clock_->SleepFor(std::min(absl::Nanoseconds(left), kStep));
  }
}

void Session::Run() {
  timer_ = std::thread([this] { TimerLoop(); });
  sender_ = std::thread([this] { SenderLoop(); });
  double backoff = config_.initial_backoff_s;
  while (!shutdown()) {
    if (ConnectOnce()) backoff = config_.initial_backoff_s;
    if (shutdown()) break;
    double sleep_s = backoff * absl::Uniform(bitgen_, 0.5, 1.0);
    PS_LOG(INFO) << "reconnecting to " << config_.controller << " in "
                 << sleep_s << " s";
    SleepUnlessShutdown(absl::Seconds(sleep_s));
    backoff = std::min(backoff * 2, config_.max_backoff_s);
  }
  std::thread worker;
  {
    absl::MutexLock lock(&mu_);
    worker = std::move(worker_);
  }
  if (worker.joinable()) worker.join();
  timer_.join();
  {
    absl::MutexLock lock(&out_mu_);
    sender_stop_ = true;
  }
  sender_.join();
}

std::optional<v1::DeviceHealth> Session::IdleHealthCheck() {
  if (config_.health == nullptr) return std::nullopt;
  absl::MutexLock check(&check_mu_);
  {
    absl::MutexLock lock(&mu_);
    if (busy_) return std::nullopt;
  }
  return config_.health->Check(/*idle=*/true);
}

v1::AgentMessage Session::MakeRegister() {
  v1::AgentMessage reg;
  v1::Register* r = reg.mutable_register_();
  if (std::optional<v1::DeviceHealth> health = IdleHealthCheck()) {
    *r->mutable_health() = *health;
    if (!health->healthy()) {
      PS_LOG(WARNING) << "health check failed: " << health->reason();
    }
  }
  *r->mutable_identity() = platform_->Identity();
  *r->mutable_capabilities() =
      AgentCapabilities(*platform_, executor_->catalog());
  int64_t run_id = 0;
  int32_t attempt = 0;
  {
    absl::MutexLock lock(&mu_);
    if (busy_) {
      run_id = busy_run_id_;
      attempt = busy_attempt_;
    }
    r->set_resume_token(resume_token_);
  }
  r->set_active_run_id(run_id);
  bool listed = false;
  for (v1::RunProgress& p : spool_->Progress()) {
    if (p.run_id() == run_id && p.attempt() == attempt) {
      p.set_executing(!p.finished());
      listed = true;
    }
    *r->add_runs() = std::move(p);
  }
  if (run_id != 0 && !listed) {
    v1::RunProgress* p = r->add_runs();
    p->set_run_id(run_id);
    p->set_attempt(attempt);
    p->set_executing(true);
  }
  return reg;
}

bool Session::ConnectOnce() {
  grpc::ClientContext ctx;
  {
    absl::MutexLock lock(&mu_);
    if (shutdown_) return false;
    ctx_ = &ctx;
  }
  const std::unique_ptr<v1::AgentGateway::Stub> stub = MakeStub();
  std::unique_ptr<Stream> stream = stub->Session(&ctx);
  v1::ControllerMessage first;
  const bool wrote = stream->Write(MakeRegister());
  const bool read = wrote && stream->Read(&first);
  const bool registered = read && first.has_registered();
  if (registered) {
    const v1::Registered& reg = first.registered();
    {
      absl::MutexLock lock(&mu_);
      heartbeat_s_ = reg.heartbeat_interval_s() > 0
                         ? reg.heartbeat_interval_s()
                         : config_.default_heartbeat_s;
      ack_timeout_s_ = reg.ack_timeout_s() > 0 ? reg.ack_timeout_s()
                                               : config_.ack_timeout_s;
      resume_token_ = reg.resume_token();
      resend_rounds_ = 0;
      latest_sent_mono_ns_ = 0;  // a new controller has no sample yet
      ++registrations_;
      connected_ = true;
    }
    PS_LOG(INFO) << "registered with " << config_.controller << " as "
                 << reg.device_id();
    const size_t dropped = spool_->BindDatabase(reg.database_id());
    if (dropped > 0) {
      PS_LOG(WARNING) << "dropped " << dropped << " spooled messages written "
                      << "for another controller database (its run ids "
                      << "name other runs in database " << reg.database_id()
                      << ")";
    }
    Serve(stream.get());  // returns when Read fails: the stream has ended
  } else if (read) {
    PS_LOG(ERROR) << "controller answered Register with something other "
                     "than Registered; reconnecting";
    ctx.TryCancel();
  } else if (!wrote) {
    while (stream->Read(&first)) {  // the call failed; collect its status
    }
  }
  {
    absl::MutexLock lock(&mu_);
    connected_ = false;
    ctx_ = nullptr;
  }
  grpc::Status st = stream->Finish();
  if (!shutdown()) {
    PS_LOG(WARNING) << "session with " << config_.controller
                    << " ended: " << st.error_message() << " (code "
                    << static_cast<int>(st.error_code()) << ")";
  }
  return registered;
}

void Session::Serve(Stream* stream) {
  {
    absl::MutexLock lock(&write_mu_);
    {
      // The spool is replayed below; queued copies would only repeat it.
      absl::MutexLock out(&out_mu_);
      std::deque<v1::AgentMessage> keep;
      for (v1::AgentMessage& m : outq_) {
        if (m.has_run_started() && !unsent_started_.has_value()) {
          unsent_started_ = m.run_started();
        } else if (m.has_assign_reply()) {
          keep.push_back(std::move(m));
        }
      }
      outq_ = std::move(keep);
    }
    bool ok = true;
    if (unsent_started_.has_value()) {
      v1::AgentMessage m;
      *m.mutable_run_started() = *unsent_started_;
      ok = stream->Write(m);
      if (ok) unsent_started_.reset();
    }
    std::vector<v1::AgentMessage> pending = spool_->Pending();
    if (!pending.empty()) {
      PS_LOG(INFO) << "replaying " << pending.size() << " spooled messages";
    }
    for (size_t i = 0; ok && i < pending.size(); ++i) {
      ok = stream->Write(pending[i]);
    }
    spool_->MarkAllSent(clock_->MonotonicNanos());
    stream_ = stream;
  }
  v1::ControllerMessage msg;
  while (stream->Read(&msg)) {
    switch (msg.msg_case()) {
      case v1::ControllerMessage::kAssign:
        HandleAssign(msg.assign().spec());
        break;
      case v1::ControllerMessage::kCancel:
        PS_LOG(INFO) << "controller cancels run " << msg.cancel().run_id()
                     << ": " << msg.cancel().reason();
        executor_->Cancel(msg.cancel().run_id(), msg.cancel().reason());
        break;
      case v1::ControllerMessage::kAck: {
        spool_->Ack(msg.ack().run_id(), msg.ack().attempt(), msg.ack().seq());
        absl::MutexLock lock(&mu_);
        resend_rounds_ = 0;
        break;
      }
      case v1::ControllerMessage::kResend: {
        const v1::ResendRequest& r = msg.resend();
        std::vector<v1::AgentMessage> again = spool_->Select(
            r.run_id(), r.attempt(), {r.seqs().begin(), r.seqs().end()});
        PS_LOG(INFO) << "controller asks for " << r.seqs_size()
                     << " batches of run " << r.run_id() << " again; "
                     << again.size() << " are spooled";
        for (v1::AgentMessage& m : again) Enqueue(std::move(m));
        break;
      }
      default:
        break;
    }
  }
  absl::MutexLock lock(&write_mu_);
  stream_ = nullptr;
}

void Session::HandleAssign(const v1::RunSpec& spec) {
  v1::AgentMessage reply;
  v1::AssignReply* r = reply.mutable_assign_reply();
  r->set_run_id(spec.run_id());
  r->set_attempt(spec.attempt());
  // Only this thread starts runs, so an idle agent stays idle until the
  // check below is done (and the timer's checks wait for check_mu_).
  absl::MutexLock check(&check_mu_);
  bool idle;
  {
    absl::MutexLock lock(&mu_);
    idle = !busy_ && !stopping_;
  }
  std::optional<v1::DeviceHealth> health;
  if (idle && config_.health != nullptr) {
    health = config_.health->Check(/*idle=*/false);
  }
  std::optional<RebootTarget> reboot;
  if (idle && config_.reboot != nullptr) {
    reboot = platform_->RebootFor(spec.power_mode());
    const std::string blocked =
        reboot.has_value() ? config_.reboot->Blocked(*reboot) : "";
    if (!blocked.empty()) {
      PS_LOG(WARNING) << "run " << spec.run_id() << " needs a reboot into "
                      << reboot->preset << ": " << blocked;
      reboot.reset();  // accepted; Apply fails with the reason
    }
  }
  absl::MutexLock lock(&mu_);
  if (stopping_) {
    r->set_reason("the agent is shutting down");
  } else if (rebooting_) {
    r->set_reason("the agent is rebooting the board");
  } else if (busy_ && busy_run_id_ == spec.run_id() &&
             busy_attempt_ == spec.attempt()) {
    r->set_accepted(true);  // a repeat of the assignment it executes
  } else if (busy_) {
    r->set_reason(absl::StrCat("busy with run ", busy_run_id_, " (attempt ",
                               busy_attempt_, ")"));
    r->set_busy_run_id(busy_run_id_);
    r->set_busy_attempt(busy_attempt_);
  } else if (health.has_value() && !health->healthy()) {
    r->set_reason(absl::StrCat("unhealthy: ", health->reason()));
    *r->mutable_health() = *health;
  } else if (reboot.has_value()) {
    r->set_reason(absl::StrCat(
        "rebooting the board into ", reboot->preset, " (nvpmodel -m ",
        reboot->nvpmodel_id,
        "): its GPU power gating differs from the board's; the run goes "
        "back to the queue and is assigned again after the boot"));
    rebooting_ = true;  // no runs until the reboot (or its failure)
    if (reboot_.joinable()) reboot_.join();
    reboot_ = std::thread(
        [this, target = *reboot] { RebootAfterReply(target); });
  } else {
    r->set_accepted(true);
    busy_ = true;
    busy_run_id_ = spec.run_id();
    busy_attempt_ = spec.attempt();
    reported_run_id_ = spec.run_id();
    reported_attempt_ = spec.attempt();
    if (worker_.joinable()) worker_.join();  // the previous run has ended
    worker_ = std::thread([this, spec] {
      executor_->Execute(spec, this);
      absl::MutexLock lock(&mu_);
      busy_ = false;
      busy_run_id_ = 0;
      busy_attempt_ = 0;
      reported_run_id_ = 0;
      reported_attempt_ = 0;
    });
    Enqueue(std::move(reply));
    return;
  }
  if (!r->accepted() || !busy_) {
    PS_LOG(WARNING) << "rejecting assignment of run " << spec.run_id() << ": "
                    << r->reason();
  }
  Enqueue(std::move(reply));
}

void Session::RebootAfterReply(const RebootTarget& target) {
  // The declining reply first: the controller puts the run back.
  const int64_t end = clock_->MonotonicNanos() + int64_t{3} * 1000000000;
  while (clock_->MonotonicNanos() < end) {
    {
      absl::MutexLock lock(&out_mu_);
      if (outq_.empty()) break;
    }
    clock_->SleepFor(absl::Milliseconds(20));
  }
  absl::Status st = config_.reboot->Start(target);
  if (st.ok()) return;  // the board goes down
  PS_LOG(ERROR) << "cannot reboot into " << target.preset << ": " << st
                << "; taking runs again (that mode's runs will fail)";
  absl::MutexLock lock(&mu_);
  rebooting_ = false;
  if (shutdown_) return;
  // The controller gave up on this session's assignments: register anew.
  if (ctx_ != nullptr) ctx_->TryCancel();
}

void Session::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  PS_LOG(INFO) << "shutting down"
               << (executor_->ActiveRunId() != 0 ? ": cancelling the run" : "");
  executor_->Cancel(0, "agent shutting down");
  {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](bool* busy) { return !*busy; }, &busy_));
  }
  const int64_t end = clock_->MonotonicNanos() +
                      static_cast<int64_t>(config_.flush_timeout_s * 1e9);
  // Waits even while disconnected: Run() keeps reconnecting meanwhile.
  while (spool_->size() > 0 && clock_->MonotonicNanos() < end) {
    clock_->SleepFor(kStep);
  }
  if (spool_->size() > 0) {
    PS_LOG(WARNING) << "exiting with " << spool_->size()
                    << " unacknowledged messages"
                    << " (kept in the spool file when there is one)";
  }
  absl::MutexLock lock(&mu_);
  shutdown_ = true;
  if (ctx_ != nullptr) ctx_->TryCancel();
}

}  // namespace powersweep
