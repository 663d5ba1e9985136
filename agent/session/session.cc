#include "agent/session/session.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/random/distributions.h"
#include "common/log.h"

namespace powersweep {

namespace {
constexpr absl::Duration kStep = absl::Milliseconds(20);
}  // namespace

Session::Session(SessionConfig config, Platform* platform,
                 RunExecutor* executor, Clock* clock)
    : config_(std::move(config)),
      platform_(platform),
      executor_(executor),
      clock_(clock) {
  grpc::ChannelArguments args;
  // Keep gRPC's own reconnect backoff within ours.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
              std::max(1, static_cast<int>(config_.initial_backoff_s * 1000)));
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS,
              std::max(1, static_cast<int>(config_.initial_backoff_s * 1000)));
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
              std::max(1, static_cast<int>(config_.max_backoff_s * 1000)));
  if (config_.credentials != nullptr && !config_.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(config_.tls_server_name);
  }
  stub_ = v1::AgentGateway::NewStub(grpc::CreateCustomChannel(
      config_.controller,
      config_.credentials != nullptr ? config_.credentials
                                     : grpc::InsecureChannelCredentials(),
      args));
  heartbeat_s_ = config_.default_heartbeat_s;
}

Session::~Session() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    shutdown_ = true;
    if (ctx_ != nullptr) ctx_->TryCancel();
  }
  executor_->Cancel(0, "agent shutting down");
  std::thread worker;
  {
    absl::MutexLock lock(&mu_);
    worker = std::move(worker_);
  }
  if (worker.joinable()) worker.join();
  if (heartbeat_.joinable()) heartbeat_.join();
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
  heartbeat_ = std::thread([this] { HeartbeatLoop(); });
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
  heartbeat_.join();
}

bool Session::ConnectOnce() {
  grpc::ClientContext ctx;
  {
    absl::MutexLock lock(&mu_);
    if (shutdown_) return false;
    ctx_ = &ctx;
  }
  std::unique_ptr<Stream> stream = stub_->Session(&ctx);
  v1::AgentMessage reg;
  *reg.mutable_register_()->mutable_identity() = platform_->Identity();
  *reg.mutable_register_()->mutable_capabilities() =
      platform_->Capabilities();
  reg.mutable_register_()->set_active_run_id(executor_->ActiveRunId());
  v1::ControllerMessage first;
  const bool wrote = stream->Write(reg);
  const bool read = wrote && stream->Read(&first);
  const bool registered = read && first.has_registered();
  if (registered) {
    double hb = first.registered().heartbeat_interval_s();
    {
      absl::MutexLock lock(&mu_);
      heartbeat_s_ = hb > 0 ? hb : config_.default_heartbeat_s;
      ++registrations_;
      connected_ = true;
    }
    PS_LOG(INFO) << "registered with " << config_.controller << " as "
                 << first.registered().device_id();
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
    stream_ = stream;
    bool ok = true;
    if (unsent_started_.has_value()) {
      v1::AgentMessage m;
      *m.mutable_run_started() = *unsent_started_;
      ok = WriteLocked(m);
      if (ok) unsent_started_.reset();
    }
    std::vector<v1::AgentMessage> pending = spool_.Pending();
    if (!pending.empty()) {
      PS_LOG(INFO) << "replaying " << pending.size() << " spooled messages";
    }
    for (size_t i = 0; ok && i < pending.size(); ++i) {
      ok = WriteLocked(pending[i]);
    }
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
      case v1::ControllerMessage::kAck:
        spool_.Ack(msg.ack().run_id(), msg.ack().seq());
        break;
      default:
        break;
    }
  }
  absl::MutexLock lock(&write_mu_);
  stream_ = nullptr;
}

void Session::HandleAssign(const v1::RunSpec& spec) {
  absl::MutexLock lock(&mu_);
  if (busy_ || stopping_) {
    PS_LOG(WARNING) << "ignoring assignment of run " << spec.run_id()
                    << ": " << (stopping_ ? "shutting down" : "busy with run ")
                    << (stopping_ ? 0 : executor_->ActiveRunId());
    return;
  }
  busy_ = true;
  if (worker_.joinable()) worker_.join();  // the previous run has ended
  worker_ = std::thread([this, spec] {
    executor_->Execute(spec, this);
    absl::MutexLock lock(&mu_);
    busy_ = false;
  });
}

void Session::HeartbeatLoop() {
  int64_t next = clock_->MonotonicNanos();
  while (!shutdown()) {
    clock_->SleepFor(kStep);
    const int64_t now = clock_->MonotonicNanos();
    if (now < next) continue;
    double interval_s;
    {
      absl::MutexLock lock(&mu_);
      interval_s = heartbeat_s_;
    }
    next = now + static_cast<int64_t>(interval_s * 1e9);
    v1::AgentMessage hb;
    hb.mutable_heartbeat()->set_current_run_id(executor_->ActiveRunId());
    absl::MutexLock lock(&write_mu_);
    if (stream_ != nullptr) WriteLocked(hb);
  }
}

bool Session::WriteLocked(const v1::AgentMessage& msg) {
  if (stream_ == nullptr) return false;
  return stream_->Write(msg);
}

void Session::SpoolAndSend(const v1::AgentMessage& msg) {
  absl::MutexLock lock(&write_mu_);
  absl::Status st = spool_.Add(msg);
  if (!st.ok()) {
    PS_LOG(ERROR) << st.message();
    return;
  }
  WriteLocked(msg);  // on failure the reader sees the stream end
}

void Session::OnRunStarted(const v1::RunStarted& started) {
  v1::AgentMessage m;
  *m.mutable_run_started() = started;
  absl::MutexLock lock(&write_mu_);
  if (!WriteLocked(m)) unsent_started_ = started;
}

void Session::OnBatch(const v1::DataBatch& batch) {
  v1::AgentMessage m;
  *m.mutable_batch() = batch;
  SpoolAndSend(m);
}

void Session::OnRunFinished(const v1::RunFinished& finished) {
  v1::AgentMessage m;
  *m.mutable_run_finished() = finished;
  SpoolAndSend(m);
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
  while (spool_.size() > 0 && clock_->MonotonicNanos() < end) {
    clock_->SleepFor(kStep);
  }
  if (spool_.size() > 0) {
    PS_LOG(WARNING) << "exiting with " << spool_.size()
                    << " unacknowledged messages";
  }
  absl::MutexLock lock(&mu_);
  shutdown_ = true;
  if (ctx_ != nullptr) ctx_->TryCancel();
}

}  // namespace powersweep
