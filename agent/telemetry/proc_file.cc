#include "agent/telemetry/proc_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace powersweep {

ProcFile::ProcFile(std::string path) : path_(std::move(path)) {}

ProcFile::~ProcFile() {
  if (fd_ >= 0) close(fd_);
}

ProcFile::ProcFile(ProcFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

ProcFile& ProcFile::operator=(ProcFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

absl::StatusOr<std::string> ProcFile::Read() {
  std::string out;
  PS_RETURN_IF_ERROR(ReadInto(&out));
  return out;
}

absl::Status ProcFile::ReadInto(std::string* out) {
  if (fd_ < 0) {
    fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      return absl::NotFoundError(
          absl::StrCat(path_, ": cannot open: ", strerror(errno)));
    }
  }
  constexpr size_t kChunk = 8192;
  size_t size = 0;
  while (true) {
    if (out->size() < size + kChunk) out->resize(size + kChunk);
    ssize_t n = pread(fd_, out->data() + size, kChunk, static_cast<off_t>(size));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd_);
      fd_ = -1;
      out->clear();
      return absl::InternalError(
          absl::StrCat(path_, ": read failed: ", strerror(err)));
    }
    if (n == 0) break;
    size += static_cast<size_t>(n);
  }
  out->resize(size);
  return absl::OkStatus();
}

}  // namespace powersweep
