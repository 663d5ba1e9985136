// StreamConnection: AgentConnection over one AgentGateway.Session server
// stream. Send never blocks: it appends to a bounded queue that a writer
// thread of the connection drains with stream writes, so a peer that stops
// reading (a zero HTTP/2 window) stalls only its own writer. A full queue
// ends the session (the peer is not keeping up), and so does a write that
// waits longer than the fleet's write timeout (WriteWaiting, checked by
// the liveness thread); Close cancels the call.
//
// Lifetime: created by the session's handler thread, which calls Stop()
// before it returns; after Stop() the stream is never touched again.
// Thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SERVICE_STREAM_CONNECTION_H_
#define POWERSWEEP_CONTROLLER_SERVICE_STREAM_CONNECTION_H_

#include <cstddef>
#include <deque>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "controller/core/agent_connection.h"
#include "grpcpp/grpcpp.h"
#include "powersweep/v1/agent_gateway.grpc.pb.h"

namespace powersweep {

class StreamConnection : public AgentConnection {
 public:
  using Stream = grpc::ServerReaderWriter<::powersweep::v1::ControllerMessage,
                                          ::powersweep::v1::AgentMessage>;

  StreamConnection(grpc::ServerContext* context, Stream* stream,
                   size_t max_queued = 4096);
  ~StreamConnection() override;

  bool Send(const ::powersweep::v1::ControllerMessage& msg) override;
  void Close() override;
  absl::Duration WriteWaiting() const override;
  // Ends the writer thread (cancelling a write in progress) and refuses
  // every later Send. Idempotent.
  void Stop();

 private:
  void WriterLoop();

  grpc::ServerContext* const context_;
  Stream* const stream_;
  const size_t max_queued_;
  mutable absl::Mutex mu_;
  std::deque<::powersweep::v1::ControllerMessage> queue_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time write_started_ ABSL_GUARDED_BY(mu_);  // when writing_ was set
  std::thread writer_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SERVICE_STREAM_CONNECTION_H_
