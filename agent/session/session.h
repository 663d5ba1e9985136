// Session: the agent's side of AgentGateway.Session (docs/ARCHITECTURE.md
// "Agent session"). Run() dials the controller, sends Register (identity,
// capabilities, the run still executing if any), waits for Registered,
// replays the spool, then serves the stream: AssignRun starts the
// RunExecutor on a worker thread (a second assignment while busy is logged
// and ignored), CancelRun cancels the run, Ack removes spooled messages.
// A heartbeat thread sends Heartbeat at the interval the controller gave.
// When the stream breaks, Run() reconnects with exponential backoff (initial
// backoff doubling up to max, each sleep jittered to 50..100%, on the Clock)
// while a run continues and keeps spooling; after reconnecting the spool is
// replayed in order (at-least-once delivery keyed by (run_id, seq)).
//
// Session is the RunSink of its runs: batches and RunFinished go into the
// spool and are written at once when connected; RunStarted is written when
// connected, else sent right after the next registration.
//
// Thread safety: Run() on one thread; Shutdown() and the observers from any
// other thread. Writes to the stream are serialized by a mutex (gRPC sync
// streams allow one writer and one reader at a time).
#ifndef POWERSWEEP_AGENT_SESSION_SESSION_H_
#define POWERSWEEP_AGENT_SESSION_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/synchronization/mutex.h"
#include "agent/platform/platform.h"
#include "agent/run_executor.h"
#include "agent/session/spool.h"
#include "common/clock.h"
#include "grpcpp/grpcpp.h"
#include "powersweep/v1/powersweep.grpc.pb.h"

namespace powersweep {

struct SessionConfig {
  std::string controller = "127.0.0.1:7070";
  double initial_backoff_s = 0.5;
  double max_backoff_s = 10;
  double default_heartbeat_s = 5;  // when Registered carries none
  double flush_timeout_s = 5;      // Shutdown: time to drain the spool
  // Transport security (agent/main.cc --tls_*): null = plaintext. With TLS,
  // `tls_server_name` (if set) is the name expected in the controller's
  // certificate instead of the host of `controller`.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  std::string tls_server_name;
};

class Session : public RunSink {
 public:
  // All pointers must outlive the session.
  Session(SessionConfig config, Platform* platform, RunExecutor* executor,
          Clock* clock);
  ~Session() override;

  // Blocks until Shutdown(); always returns after the worker and heartbeat
  // threads have ended.
  void Run();
  // Stops accepting runs, cancels the running workload and waits for its
  // RunFinished, tries for flush_timeout_s to get the spool acknowledged,
  // then ends the stream and makes Run() return. Not async-signal-safe.
  void Shutdown();

  // Observers (tests, logs).
  int64_t registrations() const;  // successful registrations so far
  bool connected() const;
  size_t spooled() const { return spool_.size(); }

  // RunSink
  void OnRunStarted(const v1::RunStarted& started) override;
  void OnBatch(const v1::DataBatch& batch) override;
  void OnRunFinished(const v1::RunFinished& finished) override;

 private:
  using Stream =
      grpc::ClientReaderWriter<v1::AgentMessage, v1::ControllerMessage>;

  // One connection: returns true if it got as far as Registered.
  bool ConnectOnce();
  void Serve(Stream* stream);
  void HandleAssign(const v1::RunSpec& spec);
  void HeartbeatLoop();
  void SpoolAndSend(const v1::AgentMessage& msg);
  bool WriteLocked(const v1::AgentMessage& msg)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // Sleeps `d` on the Clock in short steps; returns early on shutdown.
  void SleepUnlessShutdown(absl::Duration d);
  bool shutdown() const;

  const SessionConfig config_;
  Platform* const platform_;
  RunExecutor* const executor_;
  Clock* const clock_;
  std::unique_ptr<v1::AgentGateway::Stub> stub_;
  Spool spool_;
  absl::BitGen bitgen_;  // Run() thread only

  absl::Mutex write_mu_;
  Stream* stream_ ABSL_GUARDED_BY(write_mu_) = nullptr;
  std::optional<v1::RunStarted> unsent_started_ ABSL_GUARDED_BY(write_mu_);

  mutable absl::Mutex mu_;
  grpc::ClientContext* ctx_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;   // no new runs
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;   // end Run()
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  bool connected_ ABSL_GUARDED_BY(mu_) = false;
  int64_t registrations_ ABSL_GUARDED_BY(mu_) = 0;
  double heartbeat_s_ ABSL_GUARDED_BY(mu_) = 5;
  std::thread worker_ ABSL_GUARDED_BY(mu_);
  std::thread heartbeat_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_SESSION_SESSION_H_
