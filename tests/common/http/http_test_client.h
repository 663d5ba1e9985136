// A plain-socket HTTP client for tests of HttpServer and of the /metrics
// pages: connects to 127.0.0.1:PORT, sends bytes as given, reads until
// the server closes the connection (bounded by a timeout). Not
// thread-safe; each call uses its own socket.
#ifndef POWERSWEEP_TESTS_COMMON_HTTP_HTTP_TEST_CLIENT_H_
#define POWERSWEEP_TESTS_COMMON_HTTP_HTTP_TEST_CLIENT_H_

#include <string>

namespace powersweep::testing {

struct RawHttpResponse {
  bool ok = false;   // connected, sent, and the server closed
  int status = 0;    // from the status line; 0 if none
  std::string head;  // status line and headers
  std::string body;
  std::string raw;
  // The value of header `name` (case-insensitive), "" if absent.
  std::string Header(const std::string& name) const;
};

// A connected socket to 127.0.0.1:port, or -1.
int ConnectLoopback(int port);
// Sends `bytes` on `fd` (all of them); false on error.
bool SendAll(int fd, const std::string& bytes);
// Reads from `fd` until EOF or `timeout_s`, then parses the response.
RawHttpResponse ReadResponse(int fd, double timeout_s = 10);
// Connects, sends `request`, reads the response, closes.
RawHttpResponse RawRequest(int port, const std::string& request,
                           double timeout_s = 10);
// GET `path` with HTTP/1.1 and Host.
RawHttpResponse HttpGet(int port, const std::string& path);

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_COMMON_HTTP_HTTP_TEST_CLIENT_H_
