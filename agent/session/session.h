// Session: the agent's side of AgentGateway.Session (docs/ARCHITECTURE.md
// "Agent session"). Run() dials the controller, sends Register (identity,
// capabilities, the run still executing, every run the spool holds data
// of, the resume token of the previous session), waits for Registered,
// replays the spool, then serves the stream:
// - AssignRun is answered with AssignReply: accepted (the RunExecutor
//   starts on a worker thread) or rejected with the reason (busy with run
//   N, shutting down, "unhealthy: ..." with the failed health check); a
//   rejected assignment never goes unanswered.
// - CancelRun cancels the run; Ack{run, attempt, seq} removes a spooled
//   message; ResendRequest sends the named batches again.
// A timer thread (session_send.cc) sends Heartbeat (current run and
// attempt; while idle, a health check; the device's newest sample when a
// newer one came) at the interval the controller gave, and sends again
// every spooled message whose acknowledgement is overdue (ack timeout, doubling per unanswered resend
// up to 8x), so data is never stuck waiting for a reconnect.
// When the stream breaks, Run() reconnects with exponential backoff
// (initial backoff doubling up to max, each sleep jittered to 50..100%)
// while a run continues and keeps spooling.
//
// Measurement threads never write to the network: OnBatch and
// OnRunFinished append to the spool (durable when it has a file) and queue
// the message; one sender thread writes queued messages to the stream, so
// a slow controller cannot skew measured times.
//
// Thread safety: Run() on one thread; Shutdown() and the observers from any
// other thread.
#ifndef POWERSWEEP_AGENT_SESSION_SESSION_H_
#define POWERSWEEP_AGENT_SESSION_SESSION_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/synchronization/mutex.h"
#include "agent/platform/platform.h"
#include "agent/run/health_check.h"
#include "agent/run/latest_reading.h"
#include "agent/run/run_executor.h"
#include "agent/session/spool.h"
#include "common/clock.h"
#include "grpcpp/grpcpp.h"
#include "powersweep/v1/agent_gateway.grpc.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

struct SessionConfig {
  std::string controller = "127.0.0.1:7070";
  double initial_backoff_s = 0.5;
  double max_backoff_s = 10;
  double default_heartbeat_s = 5;  // when Registered carries none
  double ack_timeout_s = 10;       // when Registered carries none
  double flush_timeout_s = 5;      // Shutdown: time to drain the spool
  // Transport security (agent/main.cc --tls_*): null = plaintext. With TLS,
  // `tls_server_name` (if set) is the name expected in the controller's
  // certificate instead of the host of `controller`.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  std::string tls_server_name;
  // The agent's health check (agent/run/health_check.h), run while idle at
  // registration, in heartbeats and before accepting an assignment; null:
  // none (nothing reported, every assignment judged on busy/stopping only).
  // Must outlive the session.
  HealthChecker* health = nullptr;
  // The device's newest sample (agent/run/latest_reading.h): each heartbeat
  // carries it (Heartbeat.latest) when it is newer than the one the
  // previous heartbeat of this registration carried. Null: heartbeats carry
  // none. Must outlive the session.
  const LatestReading* latest = nullptr;
  // --allow_reboot: an assignment whose power mode needs a reboot
  // (Platform::RebootFor) is declined, so the run goes back to the
  // controller's queue, and the board is rebooted into the mode; the agent
  // comes back after the boot (systemd) and is assigned the run again. A
  // target the reboot already tried (BoardReboot::Blocked) is accepted and
  // fails at Apply with the reason. Null: runs that need a reboot fail.
  // Must outlive the session.
  BoardReboot* reboot = nullptr;
};

class Session : public RunSink {
 public:
  // All pointers must outlive the session. `spool` null: in memory only.
  Session(SessionConfig config, Platform* platform, RunExecutor* executor,
          Clock* clock, std::unique_ptr<Spool> spool = nullptr);
  ~Session() override;

  // Blocks until Shutdown(); always returns after the worker, timer and
  // sender threads have ended.
  void Run();
  // Stops accepting runs, cancels the running workload and waits for its
  // RunFinished, tries for flush_timeout_s to get the spool acknowledged,
  // then ends the stream and makes Run() return. Not async-signal-safe.
  void Shutdown();

  // Observers (tests, logs).
  int64_t registrations() const;  // successful registrations so far
  bool connected() const;
  size_t spooled() const { return spool_->size(); }

  // RunSink
  void OnRunStarted(const v1::RunStarted& started) override;
  void OnBatch(const v1::DataBatch& batch) override;
  void OnRunFinished(const v1::RunFinished& finished) override;

 private:
  using Stream =
      grpc::ClientReaderWriter<v1::AgentMessage, v1::ControllerMessage>;

  // One connection: returns true if it got as far as Registered.
  bool ConnectOnce();
  v1::AgentMessage MakeRegister();
  void Serve(Stream* stream);
  void HandleAssign(const v1::RunSpec& spec);
  // After the declining AssignReply has gone out (bounded wait): reboots;
  // on failure the agent takes runs again and reconnects.
  void RebootAfterReply(const RebootTarget& target);
  void TimerLoop();
  void SenderLoop();
  void Enqueue(v1::AgentMessage msg);
  void SpoolAndQueue(const v1::AgentMessage& msg);
  // A health check (SessionConfig::health) while no run executes; nullopt
  // during a run or without a checker. Checks never overlap a run: an
  // assignment is accepted under check_mu_ too.
  std::optional<v1::DeviceHealth> IdleHealthCheck()
      ABSL_LOCKS_EXCLUDED(check_mu_, mu_);
  // Sleeps `d` on the Clock in short steps; returns early on shutdown.
  void SleepUnlessShutdown(absl::Duration d);
  // A stub on a new channel to the controller (one per connection attempt).
  std::unique_ptr<v1::AgentGateway::Stub> MakeStub() const;
  bool shutdown() const;

  const SessionConfig config_;
  Platform* const platform_;
  RunExecutor* const executor_;
  Clock* const clock_;
  std::unique_ptr<Spool> spool_;
  absl::BitGen bitgen_;  // Run() thread only

  // The stream, for the sender thread and the replay at connect.
  absl::Mutex write_mu_ ABSL_ACQUIRED_BEFORE(out_mu_);
  Stream* stream_ ABSL_GUARDED_BY(write_mu_) = nullptr;
  std::optional<v1::RunStarted> unsent_started_ ABSL_GUARDED_BY(write_mu_);

  // Messages waiting for the sender thread.
  absl::Mutex out_mu_;
  std::deque<v1::AgentMessage> outq_ ABSL_GUARDED_BY(out_mu_);
  bool sender_stop_ ABSL_GUARDED_BY(out_mu_) = false;

  // Held across a health check and across accepting an assignment.
  absl::Mutex check_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  grpc::ClientContext* ctx_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;   // no new runs
  bool rebooting_ ABSL_GUARDED_BY(mu_) = false;  // --allow_reboot under way
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;   // end Run()
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  int64_t busy_run_id_ ABSL_GUARDED_BY(mu_) = 0;
  int32_t busy_attempt_ ABSL_GUARDED_BY(mu_) = 0;
  // What heartbeats report: the busy run until its RunFinished is queued.
  int64_t reported_run_id_ ABSL_GUARDED_BY(mu_) = 0;
  int32_t reported_attempt_ ABSL_GUARDED_BY(mu_) = 0;
  // When the sample the last heartbeat carried was observed (monotonic ns);
  // 0 after each registration.
  int64_t latest_sent_mono_ns_ ABSL_GUARDED_BY(mu_) = 0;
  bool connected_ ABSL_GUARDED_BY(mu_) = false;
  int64_t registrations_ ABSL_GUARDED_BY(mu_) = 0;
  double heartbeat_s_ ABSL_GUARDED_BY(mu_) = 5;
  double ack_timeout_s_ ABSL_GUARDED_BY(mu_) = 10;
  int resend_rounds_ ABSL_GUARDED_BY(mu_) = 0;  // unanswered resends in a row
  std::string resume_token_ ABSL_GUARDED_BY(mu_);
  std::thread worker_ ABSL_GUARDED_BY(mu_);
  std::thread reboot_ ABSL_GUARDED_BY(mu_);
  std::thread timer_;
  std::thread sender_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_SESSION_SESSION_H_
