// HttpServer: a small HTTP/1.1 server for read-only pages such as
// Prometheus' /metrics, on its own listening socket and one thread.
//
// - It serves GET and HEAD of the exact paths of its endpoints (a query
//   string is ignored): 200 with the endpoint's body; 404 for any other
//   path; 405 (with Allow: GET, HEAD) for any other method; 400 for a
//   malformed request line; 431 when the request head exceeds
//   max_request_bytes; 408 when the head has not arrived within
//   request_timeout of the connection being accepted. Every response
//   closes the connection (Connection: close); no keep-alive, no request
//   bodies.
// - One connection is served at a time, on the server thread, which also
//   calls the endpoints' body functions (so they must not block for long:
//   a scrape reads gauges and counters). A client that connects and sends
//   nothing holds the server for at most request_timeout; a client that
//   does not read its response, for at most write_timeout.
// - Start() binds and listens before returning (port 0 picks a free port;
//   port() tells which), so a client may connect as soon as it returns.
//   Which addresses may be listened on is the caller's policy
//   (common/metrics/metrics_listen.h for the metrics flags).
//
// Thread safety: the endpoints' body functions run on the server thread;
// port() may be called from any thread; Stop() and the destructor from the
// thread that owns the server. Stop() ends the connection being served
// (without a response), joins the thread and closes the listening socket
// (connections not accepted yet are reset); it returns promptly.
#ifndef POWERSWEEP_COMMON_HTTP_HTTP_SERVER_H_
#define POWERSWEEP_COMMON_HTTP_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/http/http_message.h"

namespace powersweep {

// A page: GET `path` answers `body()` with `content_type`.
struct HttpEndpoint {
  std::string path;  // exact, e.g. "/metrics"
  std::string content_type;
  std::function<std::string()> body;
};

struct HttpServerOptions {
  size_t max_request_bytes = 8192;  // request line and headers
  absl::Duration request_timeout = absl::Seconds(5);
  absl::Duration write_timeout = absl::Seconds(5);
};

class HttpServer {
 public:
  // Listens on `listen` ("HOST:PORT", "[IPV6]:PORT"; HOST a literal
  // address or a name that resolves, e.g. localhost) and starts serving.
  // InvalidArgument for an address that does not parse or resolve (the
  // message quotes it); Unavailable when it cannot be bound (e.g. in use).
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const std::string& listen, std::vector<HttpEndpoint> endpoints,
      HttpServerOptions options = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port actually bound.
  int port() const { return port_; }
  // Stops serving (idempotent).
  void Stop();

 private:
  enum class Wait { kReady, kTimeout, kStop, kError };
  // Timeouts run on the monotonic clock.
  using Deadline = std::chrono::steady_clock::time_point;

  HttpServer(int listen_fd, int wake_read, int wake_write, int port,
             std::vector<HttpEndpoint> endpoints, HttpServerOptions options);
  void Loop();
  // Reads one request from `fd`, answers it, closes nothing.
  void Serve(int fd);
  // The response to the request head `head` (whole, ending in a blank line).
  HttpResponse Answer(absl::string_view head, bool* head_only) const;
  // Writes all of `bytes` to `fd` before `deadline`; false when it could not.
  bool WriteAll(int fd, const std::string& bytes, Deadline deadline);
  // Waits for `events` on `fd` until `deadline` or Stop().
  Wait WaitFor(int fd, short events, Deadline deadline);

  const int listen_fd_;
  const int wake_read_;  // readable once Stop() was called
  const int wake_write_;
  const int port_;
  const std::vector<HttpEndpoint> endpoints_;
  const HttpServerOptions options_;
  std::thread thread_;
  bool stopped_ = false;  // the owning thread's
};

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_HTTP_HTTP_SERVER_H_
