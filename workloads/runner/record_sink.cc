#include "workloads/runner/record_sink.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "common/proto_json.h"

namespace powersweep {

absl::Status FdRecordSink::Write(const v1::WorkloadEvent& event) {
  std::string line = ToJsonLine(event);
  line.push_back('\n');
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::UnavailableError(absl::StrCat(
          "writing a record to --records-fd ", fd_, ": ", strerror(errno)));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace powersweep
