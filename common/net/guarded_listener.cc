#include "common/net/guarded_listener.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/log.h"
#include "common/net/descriptors.h"

namespace powersweep {
namespace {

int OpenSpare() { return open("/dev/null", O_RDONLY | O_CLOEXEC); }

}  // namespace

absl::StatusOr<std::unique_ptr<GuardedListener>> GuardedListener::Start(
    ListeningSocket socket, std::function<void(int fd)> handoff,
    GuardedListenerOptions options) {
  if (!options.count_descriptors) {
    options.count_descriptors = CountOpenDescriptors;
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const int err = errno;
    close(socket.fd);
    return absl::UnavailableError(
        absl::StrCat("cannot create a pipe: ", std::strerror(err)));
  }
  // The spare and the wake pipe are part of the baseline.
  const int spare = OpenSpare();
  const int64_t baseline = std::max<int64_t>(0, options.count_descriptors());
  const int64_t ceiling =
      std::min(baseline + std::max<int64_t>(1, options.max_connections),
               options.descriptor_limit - options.reserve);
  if (ceiling <= baseline) {
    close(socket.fd);
    close(wake[0]);
    close(wake[1]);
    if (spare >= 0) close(spare);
    return absl::FailedPreconditionError(absl::StrCat(
        "the open-files limit (", options.descriptor_limit,
        ") leaves no room for connections: the process already holds ",
        baseline, " descriptors and keeps ", options.reserve,
        " free; raise LimitNOFILE (ulimit -n)"));
  }
  std::unique_ptr<GuardedListener> listener(
      new GuardedListener(socket, wake[0], wake[1], std::move(handoff),
                          std::move(options), ceiling));
  listener->spare_fd_ = spare;
  listener->open_descriptors_ = baseline;
  listener->thread_ = std::thread([l = listener.get()] { l->Loop(); });
  return listener;
}

GuardedListener::GuardedListener(ListeningSocket socket, int wake_read,
                                 int wake_write,
                                 std::function<void(int)> handoff,
                                 GuardedListenerOptions options,
                                 int64_t ceiling)
    : listen_fd_(socket.fd),
      port_(socket.port),
      wake_read_(wake_read),
      wake_write_(wake_write),
      handoff_(std::move(handoff)),
      options_(std::move(options)),
      ceiling_(ceiling) {}

GuardedListener::~GuardedListener() { Stop(); }

void GuardedListener::Stop() {
  if (stopped_) return;
  stopped_ = true;
  const char byte = 1;
  while (write(wake_write_, &byte, 1) < 0 && errno == EINTR) {
  }
  if (thread_.joinable()) thread_.join();
  close(listen_fd_);
  close(wake_read_);
  close(wake_write_);
  if (spare_fd_ >= 0) close(spare_fd_);
}

GuardedListenerCounts GuardedListener::counts() const {
  GuardedListenerCounts c;
  c.accepted = accepted_.load(std::memory_order_relaxed);
  c.refused = refused_.load(std::memory_order_relaxed);
  c.accept_errors = accept_errors_.load(std::memory_order_relaxed);
  c.open_descriptors = open_descriptors_.load(std::memory_order_relaxed);
  c.ceiling = ceiling_;
  return c;
}

void GuardedListener::Loop() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      PS_LOG(ERROR) << "listener: poll failed: " << std::strerror(errno)
                    << "; retrying in 50 ms";
      absl::SleepFor(absl::Milliseconds(50));
      continue;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents != 0) AcceptOne();
  }
}

void GuardedListener::AcceptOne() {
  const int fd =
      accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) {
    OnAcceptError(errno);
    return;
  }
  const int64_t open = options_.count_descriptors();
  open_descriptors_.store(open, std::memory_order_relaxed);
  // `open` includes the new connection.
  if (open > ceiling_) {
    close(fd);
    refused_.fetch_add(1, std::memory_order_relaxed);
    LogPressure("refusing connections at the descriptor ceiling");
    return;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  accepted_.fetch_add(1, std::memory_order_relaxed);
  handoff_(fd);
}

void GuardedListener::OnAcceptError(int err) {
  switch (err) {
    case EINTR:
    case EAGAIN:
    case ECONNABORTED:
    case EPROTO:
      return;  // the client gave up meanwhile; nothing to do
    default:
      break;
  }
  accept_errors_.fetch_add(1, std::memory_order_relaxed);
  if (err == EMFILE || err == ENFILE) {
    // Free the spare, take the pending connection and close it, so that
    // poll does not report it again and again; then keep a spare again.
    if (spare_fd_ >= 0) close(spare_fd_);
    const int fd =
        accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      close(fd);
      refused_.fetch_add(1, std::memory_order_relaxed);
    }
    spare_fd_ = OpenSpare();
    if (spare_fd_ < 0) absl::SleepFor(absl::Milliseconds(50));
  } else {
    absl::SleepFor(absl::Milliseconds(50));
  }
  LogPressure(
      absl::StrCat("accept failed (", std::strerror(err), "); recovered")
          .c_str());
}

void GuardedListener::LogPressure(const char* what) {
  const int64_t now = absl::GetCurrentTimeNanos();
  if (last_log_ns_ != 0 && now - last_log_ns_ < 10'000'000'000) return;
  last_log_ns_ = now;
  const GuardedListenerCounts c = counts();
  PS_LOG(WARNING) << "listener: " << what << ": " << c.open_descriptors
                  << " descriptors open, ceiling " << c.ceiling
                  << " (--max_connections, open-files limit "
                  << options_.descriptor_limit << "); so far " << c.refused
                  << " refused, " << c.accept_errors << " accept errors, "
                  << c.accepted << " accepted";
}

}  // namespace powersweep
