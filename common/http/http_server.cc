#include "common/http/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace powersweep {
namespace {

// Splits "HOST:PORT" or "[HOST]:PORT".
absl::Status SplitHostPort(const std::string& listen, std::string* host,
                           int* port) {
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("'", listen, "': ", why,
                                                   " (expected HOST:PORT, e.g. "
                                                   "127.0.0.1:9464)"));
  };
  absl::string_view rest = listen;
  if (!rest.empty() && rest[0] == '[') {
    const size_t close = rest.find(']');
    if (close == absl::string_view::npos) return bad("no ']' after '['");
    *host = std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
    if (rest.empty() || rest[0] != ':') return bad("no ':PORT' after ']'");
    rest.remove_prefix(1);
  } else {
    const size_t colon = rest.rfind(':');
    if (colon == absl::string_view::npos) return bad("no ':PORT'");
    *host = std::string(rest.substr(0, colon));
    rest.remove_prefix(colon + 1);
  }
  if (host->empty()) return bad("no host");
  if (!absl::SimpleAtoi(rest, port) || *port < 0 || *port > 65535) {
    return bad("the port must be a number in 0..65535");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const std::string& listen, std::vector<HttpEndpoint> endpoints,
    HttpServerOptions options) {
  std::string host;
  int port = 0;
  if (absl::Status st = SplitHostPort(listen, &host, &port); !st.ok()) {
    return st;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int gai =
      getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (gai != 0 || found == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", listen, "': cannot resolve '", host, "': ", gai_strerror(gai)));
  }
  int fd = socket(found->ai_family,
                  found->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) {
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, found->ai_addr, found->ai_addrlen) != 0 ||
        ::listen(fd, 16) != 0) {
      err = errno;
    }
  }
  freeaddrinfo(found);
  if (err != 0) {
    if (fd >= 0) close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot listen on '", listen, "': ", std::strerror(err)));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  const int bound_port =
      bound.ss_family == AF_INET6
          ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
          : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    err = errno;
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
