#include "common/http/http_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/net/listen_socket.h"

namespace powersweep {

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const std::string& listen, std::vector<HttpEndpoint> endpoints,
    HttpServerOptions options) {
  absl::StatusOr<ListeningSocket> sock = ListenTcp(listen, /*backlog=*/16);
  if (!sock.ok()) return sock.status();
  const int fd = sock->fd;
  const int bound_port = sock->port;
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const int err = errno;
    close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot create a pipe: ", std::strerror(err)));
  }
  std::unique_ptr<HttpServer> server(new HttpServer(
      fd, wake[0], wake[1], bound_port, std::move(endpoints), options));
  server->thread_ = std::thread([s = server.get()] { s->Loop(); });
  return server;
}

HttpServer::HttpServer(int listen_fd, int wake_read, int wake_write, int port,
                       std::vector<HttpEndpoint> endpoints,
                       HttpServerOptions options)
    : listen_fd_(listen_fd),
      wake_read_(wake_read),
      wake_write_(wake_write),
      port_(port),
      endpoints_(std::move(endpoints)),
      options_(options) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Stop() {
  if (stopped_) return;
  stopped_ = true;
  const char byte = 1;
  while (write(wake_write_, &byte, 1) < 0 && errno == EINTR) {
  }
  if (thread_.joinable()) thread_.join();
  // Connections not accepted yet are reset.
  close(listen_fd_);
  close(wake_read_);
  close(wake_write_);
}

HttpServer::Wait HttpServer::WaitFor(int fd, short events, Deadline deadline) {
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) return Wait::kTimeout;
    pollfd fds[2] = {{fd, events, 0}, {wake_read_, POLLIN, 0}};
    const int n =
        poll(fds, 2,
             static_cast<int>(std::min<int64_t>(left.count() + 1, 60 * 1000)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Wait::kError;
    }
    if (fds[1].revents != 0) return Wait::kStop;
    if (fds[0].revents != 0) return Wait::kReady;
  }
}

void HttpServer::Loop() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents == 0) continue;
    const int fd =
        accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;  // the client gave up meanwhile, or out of fds
    Serve(fd);
    // Read what the client sent beyond the head (bounded) so that closing
    // does not reset the connection before it has read the response.
    char sink[4096];
    for (int i = 0; i < 16 && recv(fd, sink, sizeof(sink), 0) > 0; ++i) {
    }
    shutdown(fd, SHUT_WR);
    close(fd);
  }
}

void HttpServer::Serve(int fd) {
  const Deadline read_deadline =
      std::chrono::steady_clock::now() +
      absl::ToChronoMilliseconds(options_.request_timeout);
  std::string buffer;
  HttpResponse response;
  bool head_only = false;
  while (true) {
    const size_t end = FindHeadEnd(buffer);
    if (end != std::string::npos && end <= options_.max_request_bytes) {
      response = Answer(absl::string_view(buffer).substr(0, end), &head_only);
      break;
    }
    if (buffer.size() > options_.max_request_bytes) {
      response =
          TextResponse(431, absl::StrCat("the request head is larger than ",
                                         options_.max_request_bytes, " bytes"));
      break;
    }
    const Wait w = WaitFor(fd, POLLIN, read_deadline);
    if (w == Wait::kStop || w == Wait::kError) return;
    if (w == Wait::kTimeout) {
      response = TextResponse(408, "the request did not arrive in time");
      break;
    }
    char chunk[2048];
    const size_t want =
        std::min(sizeof(chunk), options_.max_request_bytes + 1 - buffer.size());
    const ssize_t n = recv(fd, chunk, want, 0);
    if (n == 0) return;  // closed before a whole request
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return;
    }
    buffer.append(chunk, static_cast<size_t>(n));
  }
  WriteAll(fd, FormatResponse(response, head_only),
           std::chrono::steady_clock::now() +
               absl::ToChronoMilliseconds(options_.write_timeout));
}

HttpResponse HttpServer::Answer(absl::string_view head, bool* head_only) const {
  absl::StatusOr<HttpRequestHead> request = ParseRequestHead(head);
  if (!request.ok()) return TextResponse(400, request.status().message());
  *head_only = request->method == "HEAD";
  if (request->method != "GET" && !*head_only) {
    HttpResponse r =
        TextResponse(405, absl::StrCat("method ", request->method,
                                       " not allowed (only GET and HEAD)"));
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  for (const HttpEndpoint& e : endpoints_) {
    if (e.path != request->path) continue;
    HttpResponse r;
    r.content_type = e.content_type;
    r.body = e.body();
    return r;
  }
  std::string paths;
  for (const HttpEndpoint& e : endpoints_) {
    absl::StrAppend(&paths, paths.empty() ? "" : ", ", e.path);
  }
  return TextResponse(404, absl::StrCat("not found: ", request->path,
                                        " (this server has ", paths, ")"));
}

bool HttpServer::WriteAll(int fd, const std::string& bytes, Deadline deadline) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n =
        send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    if (WaitFor(fd, POLLOUT, deadline) != Wait::kReady) return false;
  }
  return true;
}

}  // namespace powersweep
