#include "workloads/data/file_bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace powersweep {
namespace {

// Closes the gzFile when it goes out of scope.
struct GzCloser {
  gzFile file;
  ~GzCloser() { gzclose(file); }
};

absl::Status OpenError(const std::string& path, int err) {
  std::string msg = absl::StrCat(path, ": cannot open: ", strerror(err));
  if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(msg);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(msg);
  return absl::DataLossError(msg);
}

// Closes the descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() { close(fd); }
};

std::string GzErrorText(gzFile file) {
  int errnum = Z_OK;
  const char* text = gzerror(file, &errnum);
  if (errnum == Z_ERRNO) return strerror(errno);
  return text != nullptr ? text : "unknown zlib error";
}

}  // namespace

absl::StatusOr<std::string> ReadFileBytes(const std::string& path) {
  errno = 0;
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    int err = errno;
    std::string msg = absl::StrCat(
        path, ": cannot open: ", err != 0 ? strerror(err) : "out of memory");
    if (err == ENOENT) return absl::NotFoundError(msg);
    if (err == EACCES) return absl::PermissionDeniedError(msg);
    return absl::DataLossError(msg);
  }
  GzCloser closer{file};
  gzbuffer(file, 1 << 17);
  std::string out;
  constexpr unsigned kChunk = 1 << 20;
  while (true) {
    size_t old_size = out.size();
    out.resize(old_size + kChunk);
    int n = gzread(file, out.data() + old_size, kChunk);
    if (n < 0) {
      return absl::DataLossError(
          absl::StrCat(path, ": corrupt gzip data: ", GzErrorText(file)));
    }
    out.resize(old_size + static_cast<size_t>(n));
    if (n == 0) break;
  }
  int errnum = Z_OK;
  gzerror(file, &errnum);
  if (errnum != Z_OK) {
    // Z_BUF_ERROR here means the gzip stream ended early (a cut file).
    return absl::DataLossError(absl::StrCat(
        path, ": truncated or corrupt gzip stream: ", GzErrorText(file)));
  }
  return out;
}

absl::StatusOr<std::string> ReadPlainFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OpenError(path, errno);
  FdCloser closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot stat: ", strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::DataLossError(absl::StrCat(path, ": is a directory"));
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = read(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::DataLossError(
          absl::StrCat(path, ": read error: ", strerror(errno)));
    }
    if (n == 0) {
      return absl::DataLossError(
          absl::StrCat(path, ": shrank while being read (", done, " of ",
                       out.size(), " bytes)"));
    }
    done += static_cast<size_t>(n);
  }
  return out;
}

}  // namespace powersweep
