// GuardedListener: accepts TCP connections on its own thread and hands
// each to a server (the controller hands them to gRPC through an external
// connection acceptor), while keeping the process away from its open-files
// limit. gRPC's own listener stops accepting for good after one EMFILE
// (grpc/grpc#20418); this one cannot:
//
// - Before a connection is handed over, the descriptors the process holds
//   are counted (common/net/descriptors.h). At or above the ceiling —
//   min(baseline + max_connections, descriptor_limit - reserve), baseline
//   being what the process held when the listener started — the new
//   connection is closed at once (refused) and counted. Connections that
//   never speak are closed by the server's handshake deadline, which frees
//   their descriptors, so a flood ends by itself.
// - accept() failing with EMFILE/ENFILE (another part of the process took
//   the last descriptors) frees a spare descriptor kept for that, accepts
//   and closes the pending connection, takes the spare back and goes on;
//   ENOBUFS/ENOMEM pause the loop for 50 ms. Every failure is counted and
//   logged (at most once per 10 s with the counts), never fatal.
//
// Thread safety: counts() from any thread; Stop() and the destructor from
// the owner's thread. The handoff runs on the listener's thread.
#ifndef POWERSWEEP_COMMON_NET_GUARDED_LISTENER_H_
#define POWERSWEEP_COMMON_NET_GUARDED_LISTENER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>

#include "absl/status/statusor.h"
#include "common/net/listen_socket.h"

namespace powersweep {

struct GuardedListenerOptions {
  // Most connections held at once, as descriptors beyond the baseline.
  int64_t max_connections = 4096;
  // The open-files soft limit the process runs under.
  int64_t descriptor_limit = 1024;
  // Descriptors always left free (database, logs, metrics page, gRPC's
  // own pipes and timers).
  int64_t reserve = 64;
  // Counts the process's open descriptors (tests replace it).
  std::function<int64_t()> count_descriptors;
};

struct GuardedListenerCounts {
  int64_t accepted = 0;          // handed to the server
  int64_t refused = 0;           // closed at once: at the ceiling
  int64_t accept_errors = 0;     // accept() failed (EMFILE, ENFILE, ENOBUFS..)
  int64_t open_descriptors = 0;  // at the latest count
  int64_t ceiling = 0;  // a connection that takes the process above this
                        // many descriptors is refused
};

class GuardedListener {
 public:
  // Takes `socket` (closed by Stop) and starts accepting. `handoff` owns
  // each connected, non-blocking socket it is given.
  static absl::StatusOr<std::unique_ptr<GuardedListener>> Start(
      ListeningSocket socket, std::function<void(int fd)> handoff,
      GuardedListenerOptions options);
  ~GuardedListener();
  GuardedListener(const GuardedListener&) = delete;
  GuardedListener& operator=(const GuardedListener&) = delete;

  int port() const { return port_; }
  int listen_fd() const { return listen_fd_; }
  GuardedListenerCounts counts() const;
  // Stops accepting and closes the listening socket (idempotent).
  void Stop();

 private:
  GuardedListener(ListeningSocket socket, int wake_read, int wake_write,
                  std::function<void(int)> handoff,
                  GuardedListenerOptions options, int64_t ceiling);
  void Loop();
  void AcceptOne();
  void OnAcceptError(int err);
  void LogPressure(const char* what);

  const int listen_fd_;
  const int port_;
  const int wake_read_;
  const int wake_write_;
  std::function<void(int)> handoff_;
  GuardedListenerOptions options_;
  const int64_t ceiling_;
  int spare_fd_ = -1;
  bool stopped_ = false;
  int64_t last_log_ns_ = 0;
  std::atomic<int64_t> accepted_{0};
  std::atomic<int64_t> refused_{0};
  std::atomic<int64_t> accept_errors_{0};
  std::atomic<int64_t> open_descriptors_{0};
  std::thread thread_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_NET_GUARDED_LISTENER_H_
