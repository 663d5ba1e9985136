#include "workloads/data/file_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace powersweep {
namespace {

absl::Status ErrnoStatus(const std::string& path, const char* what, int err,
                         bool writing) {
  std::string msg = absl::StrCat(path, ": ", what, ": ", strerror(err));
  if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(msg);
  if (err == EACCES || err == EPERM || err == EROFS) {
    return absl::PermissionDeniedError(msg);
  }
  if (err == ENOSPC || err == EDQUOT) return absl::ResourceExhaustedError(msg);
  return writing ? absl::InternalError(msg) : absl::DataLossError(msg);
}

}  // namespace

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return absl::StrCat(dir, name);
  return absl::StrCat(dir, "/", name);
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

absl::StatusOr<int64_t> FileSize(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return ErrnoStatus(path, "cannot stat", errno, false);
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::DataLossError(absl::StrCat(path, ": not a regular file"));
  }
  return static_cast<int64_t>(st.st_size);
}

absl::StatusOr<int64_t> TotalFileSize(const std::vector<std::string>& paths) {
  int64_t total = 0;
  for (const std::string& p : paths) {
    absl::StatusOr<int64_t> size = FileSize(p);
    if (!size.ok()) return size.status();
    total += *size;
  }
  return total;
}

absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return ErrnoStatus(dir, "cannot list", errno, false);
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
    errno = 0;
  }
  int err = errno;
  closedir(d);
  if (err != 0) return ErrnoStatus(dir, "cannot list", err, false);
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status MakeDirectories(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  if (d.empty() || IsDirectory(d)) return absl::OkStatus();
  size_t slash = d.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    absl::Status parent = MakeDirectories(d.substr(0, slash));
    if (!parent.ok()) return parent;
  }
  if (mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoStatus(d, "cannot create directory", errno, true);
  }
  if (!IsDirectory(d)) {
    return absl::FailedPreconditionError(
        absl::StrCat(d, ": exists and is not a directory"));
  }
  return absl::OkStatus();
}

absl::Status WriteWholeFile(const std::string& path, const std::string& bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(path, "cannot create", errno, true);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      return ErrnoStatus(path, "cannot write", err, true);
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return ErrnoStatus(path, "cannot write", errno, true);
  return absl::OkStatus();
}

}  // namespace powersweep
