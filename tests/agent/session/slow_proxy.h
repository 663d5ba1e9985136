// SlowProxy: a TCP relay on 127.0.0.1:0 that holds every new connection
// for `delay` before it connects it to `upstream` and relays bytes both
// ways. The client's TCP connect succeeds at once (the relay accepts), but
// the server's first bytes (HTTP/2 SETTINGS) come only after the delay: a
// controller too busy to answer a handshake for a while, as after a
// restart with the whole fleet reconnecting.
//
// Thread safety: one thread per connection; the destructor closes every
// socket and joins them.
#ifndef POWERSWEEP_TESTS_AGENT_SESSION_SLOW_PROXY_H_
#define POWERSWEEP_TESTS_AGENT_SESSION_SLOW_PROXY_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace powersweep {

class SlowProxy {
 public:
  // `upstream_port` on 127.0.0.1.
  SlowProxy(int upstream_port, std::chrono::milliseconds delay)
      : upstream_port_(upstream_port), delay_(delay) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = Loopback(0);
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    listen(listen_fd_, 16);
    socklen_t len = sizeof(a);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~SlowProxy() {
    stop_ = true;
    shutdown(listen_fd_, SHUT_RDWR);
    close(listen_fd_);
    acceptor_.join();
    absl::MutexLock lock(&mu_);
    for (std::thread& t : relays_) t.join();
  }
  SlowProxy(const SlowProxy&) = delete;
  SlowProxy& operator=(const SlowProxy&) = delete;

  std::string address() const {
    return "127.0.0.1:" + std::to_string(port_);
  }
  // Connections accepted so far.
  int connections() const { return connections_; }

 private:
  static sockaddr_in Loopback(int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
  }

  void Accept() {
    while (!stop_) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      ++connections_;
      absl::MutexLock lock(&mu_);
      relays_.emplace_back([this, fd] { Relay(fd); });
    }
  }

  // Holds the client for the delay (checking for the end every 20 ms),
  // then relays until either side closes.
  void Relay(int client) {
    const auto until = std::chrono::steady_clock::now() + delay_;
    while (!stop_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = Loopback(upstream_port_);
    if (stop_ ||
        connect(server, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      close(server);
      close(client);
      return;
    }
    pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
    char buf[16384];
    while (!stop_) {
      if (poll(fds, 2, 50) < 0) break;
      bool closed = false;
      for (int i = 0; i < 2 && !closed; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
        closed = n <= 0 || write(fds[1 - i].fd, buf, n) != n;
      }
      if (closed) break;
    }
    close(server);
    close(client);
  }

  const int upstream_port_;
  const std::chrono::milliseconds delay_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  absl::Mutex mu_;
  std::vector<std::thread> relays_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_AGENT_SESSION_SLOW_PROXY_H_
