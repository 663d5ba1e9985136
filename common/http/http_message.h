// The two ends of one HTTP/1.x exchange as HttpServer needs them: parsing
// a request's head (request line and headers, up to the blank line) and
// writing a whole response. Pure functions; thread-safe.
#ifndef POWERSWEEP_COMMON_HTTP_HTTP_MESSAGE_H_
#define POWERSWEEP_COMMON_HTTP_HTTP_MESSAGE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace powersweep {

struct HttpRequestHead {
  std::string method;   // "GET"
  std::string target;   // "/metrics?x=1"
  std::string path;     // "/metrics" (the target without its query)
  std::string version;  // "HTTP/1.1"
};

// Parses the request line of `head` ("GET /metrics HTTP/1.1"); headers
// after it are not interpreted. InvalidArgument naming what is wrong: not
// three parts, a method that is not a token, a target that does not start
// with '/', a version other than HTTP/1.0 or HTTP/1.1.
absl::StatusOr<HttpRequestHead> ParseRequestHead(absl::string_view head);

// The end of a request head in `buffer` (the index after "\r\n\r\n", or
// after "\n\n" from lenient clients), or npos when it is not complete.
size_t FindHeadEnd(absl::string_view buffer);

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra
};

// A response with `status`, its reason phrase and a one-line plain-text
// body (e.g. "not found: /x").
HttpResponse TextResponse(int status, absl::string_view text);

// The bytes of `response`: status line, Content-Type, Content-Length,
// Connection: close, the extra headers, then the body unless `head_only`
// (a HEAD request: the same headers, no body).
std::string FormatResponse(const HttpResponse& response, bool head_only);

// "OK", "Not Found", ... ("Unknown" for a status it does not name).
const char* ReasonPhrase(int status);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_HTTP_HTTP_MESSAGE_H_
