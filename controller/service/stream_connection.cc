#include "controller/service/stream_connection.h"

#include <utility>

#include "common/log.h"

namespace powersweep {

StreamConnection::StreamConnection(grpc::ServerContext* context,
                                   Stream* stream, size_t max_queued)
    : context_(context), stream_(stream), max_queued_(max_queued) {
  writer_ = std::thread([this] { WriterLoop(); });
}

StreamConnection::~StreamConnection() { Stop(); }

bool StreamConnection::Send(const v1::ControllerMessage& msg) {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  if (queue_.size() >= max_queued_) {
    PS_LOG(WARNING) << "session of " << context_->peer() << ": "
                    << queue_.size()
                    << " messages wait to be written; the peer is not "
                       "reading, ending the session";
    closed_ = true;
    context_->TryCancel();
    return false;
  }
  queue_.push_back(msg);
  return true;
}

void StreamConnection::Close() {
  absl::MutexLock lock(&mu_);
  if (!stopped_) context_->TryCancel();
  closed_ = true;
}

absl::Duration StreamConnection::WriteWaiting() const {
  absl::MutexLock lock(&mu_);
  return writing_ ? absl::Now() - write_started_ : absl::ZeroDuration();
}

void StreamConnection::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopped_ && !writer_.joinable()) return;
    closed_ = true;
    stopped_ = true;
    // The call is over for the handler; a write still in progress must
    // not outlive it.
    if (writing_) context_->TryCancel();
  }
  if (writer_.joinable()) writer_.join();
}

void StreamConnection::WriterLoop() {
  for (;;) {
    v1::ControllerMessage msg;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](StreamConnection* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c->mu_) {
            return c->stopped_ || !c->queue_.empty();
          },
          this));
      if (stopped_) return;
      msg = std::move(queue_.front());
      queue_.pop_front();
      writing_ = true;
      write_started_ = absl::Now();
    }
    const bool ok = stream_->Write(msg);
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!ok) {
      closed_ = true;
      queue_.clear();
      return;
    }
  }
}

}  // namespace powersweep
