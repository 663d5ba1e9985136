#include "common/http/http_message.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace powersweep {
namespace {

// RFC 9110 token characters.
bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
        absl::string_view("!#$%&'*+-.^_`|~").find(c) ==
            absl::string_view::npos) {
      return false;
    }
  }
  return true;
}

}  // namespace

size_t FindHeadEnd(absl::string_view buffer) {
  const size_t crlf = buffer.find("\r\n\r\n");
  const size_t lf = buffer.find("\n\n");
  if (crlf != absl::string_view::npos &&
      (lf == absl::string_view::npos || crlf < lf)) {
    return crlf + 4;
  }
  if (lf != absl::string_view::npos) return lf + 2;
  return absl::string_view::npos;
}

absl::StatusOr<HttpRequestHead> ParseRequestHead(absl::string_view head) {
  absl::string_view line = head.substr(0, head.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
  if (parts.size() != 3) {
    return absl::InvalidArgumentError(
        "request line: expected 'METHOD TARGET HTTP/1.1'");
  }
  HttpRequestHead out;
  if (!IsToken(parts[0])) {
    return absl::InvalidArgumentError(
        "request line: the method is not a token");
  }
  if (parts[1].empty() || parts[1][0] != '/') {
    return absl::InvalidArgumentError(
        "request line: the target must be a path starting with '/'");
  }
  if (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0") {
    return absl::InvalidArgumentError(
        "request line: the version must be HTTP/1.0 or HTTP/1.1");
  }
  out.method = std::string(parts[0]);
  out.target = std::string(parts[1]);
  out.path = out.target.substr(0, out.target.find('?'));
  out.version = std::string(parts[2]);
  return out;
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

HttpResponse TextResponse(int status, absl::string_view text) {
  HttpResponse r;
  r.status = status;
  r.body = absl::StrCat(text, "\n");
  return r;
}

std::string FormatResponse(const HttpResponse& response, bool head_only) {
  std::string out = absl::StrCat(
      "HTTP/1.1 ", response.status, " ", ReasonPhrase(response.status), "\r\n",
      "Content-Type: ", response.content_type, "\r\n",
      "Content-Length: ", response.body.size(), "\r\n",
      "Connection: close\r\n");
  for (const auto& [name, value] : response.headers) {
    absl::StrAppend(&out, name, ": ", value, "\r\n");
  }
  out += "\r\n";
  if (!head_only) out += response.body;
  return out;
}

}  // namespace powersweep
