// TestGateway: an in-process AgentGateway for session tests, on
// 127.0.0.1:0. It answers Register with Registered, assigns one configured
// run on the first registration, acknowledges batches and RunFinished
// (optionally withholding acks for batches received on the first
// connection after `ack_first_connection_up_to`), and can end the first
// connection after `drop_after_batches` batches. Everything received is
// recorded with the connection number it arrived on.
//
// Thread safety: the service runs on gRPC threads; the observers lock mu.
#ifndef POWERSWEEP_TESTS_AGENT_SESSION_TEST_GATEWAY_H_
#define POWERSWEEP_TESTS_AGENT_SESSION_TEST_GATEWAY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "powersweep/v1/agent_gateway.grpc.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

struct Received {
  int connection;  // 1-based
  v1::AgentMessage msg;
};

class TestGateway final : public v1::AgentGateway::Service {
 public:
  double heartbeat_s = 0.1;
  std::optional<v1::RunSpec> assign_on_first_register;
  int drop_after_batches = 0;          // 0: never drop
  int64_t ack_first_connection_up_to = 1LL << 60;

  // Starts the server; returns "127.0.0.1:PORT".
  std::string Start() {
    grpc::ServerBuilder b;
    int port = 0;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                       &port);
    b.RegisterService(this);
    server_ = b.BuildAndStart();
    return "127.0.0.1:" + std::to_string(port);
  }
  void Stop() {
    if (server_) server_->Shutdown(gpr_now(GPR_CLOCK_MONOTONIC));
  }

  grpc::Status Session(
      grpc::ServerContext* ctx,
      grpc::ServerReaderWriter<v1::ControllerMessage, v1::AgentMessage>*
          stream) override {
    v1::AgentMessage in;
    if (!stream->Read(&in) || !in.has_register_()) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "first message must be register");
    }
    int conn;
    {
      absl::MutexLock lock(&mu);
      conn = ++connections;
      received.push_back({conn, in});
    }
    v1::ControllerMessage out;
    out.mutable_registered()->set_device_id(
        in.register_().identity().device_id());
    out.mutable_registered()->set_heartbeat_interval_s(heartbeat_s);
    stream->Write(out);
    if (conn == 1 && assign_on_first_register.has_value()) {
      v1::ControllerMessage a;
      *a.mutable_assign()->mutable_spec() = *assign_on_first_register;
      stream->Write(a);
    }
    int batches_here = 0;
    while (stream->Read(&in)) {
      {
        absl::MutexLock lock(&mu);
        received.push_back({conn, in});
      }
      v1::ControllerMessage ack;
      if (in.has_batch()) {
        ++batches_here;
        if (conn > 1 || in.batch().seq() <= ack_first_connection_up_to) {
          ack.mutable_ack()->set_run_id(in.batch().run_id());
          ack.mutable_ack()->set_seq(in.batch().seq());
          stream->Write(ack);
        }
        if (conn == 1 && drop_after_batches > 0 &&
            batches_here >= drop_after_batches) {
          return grpc::Status(grpc::StatusCode::UNAVAILABLE, "test drop");
        }
      } else if (in.has_run_finished()) {
        ack.mutable_ack()->set_run_id(in.run_finished().result().run_id());
        ack.mutable_ack()->set_seq(0);
        stream->Write(ack);
      }
    }
    return grpc::Status::OK;
  }

  std::vector<Received> Snapshot() {
    absl::MutexLock lock(&mu);
    return received;
  }

  absl::Mutex mu;
  int connections ABSL_GUARDED_BY(mu) = 0;
  std::vector<Received> received ABSL_GUARDED_BY(mu);

 private:
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_AGENT_SESSION_TEST_GATEWAY_H_
