#include "workloads/data/page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace powersweep {
namespace {

absl::Status OpenError(const std::string& path, int err) {
  const std::string msg =
      absl::StrCat(path, ": cannot open: ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(msg);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(msg);
  return absl::InternalError(msg);
}

// An open read-only descriptor, closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::Status AddFile(const std::string& path, int64_t page, Residency* r) {
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return OpenError(path, errno);
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    return absl::InternalError(
        absl::StrCat(path, ": fstat: ", std::strerror(errno)));
  }
  if (st.st_size == 0) return absl::OkStatus();
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (map == MAP_FAILED) {
    return absl::InternalError(
        absl::StrCat(path, ": mmap: ", std::strerror(errno)));
  }
  const size_t pages = (size + page - 1) / page;
  std::vector<unsigned char> vec(pages);
  const int rc = mincore(map, size, vec.data());
  const int err = errno;
  munmap(map, size);
  if (rc != 0) {
    return absl::InternalError(
        absl::StrCat(path, ": mincore: ", std::strerror(err)));
  }
  r->total_pages += static_cast<int64_t>(pages);
  for (unsigned char v : vec) r->resident_pages += (v & 1);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Residency> MeasureResidency(
    const std::vector<std::string>& files) {
  const int64_t page = sysconf(_SC_PAGESIZE);
  Residency r;
  for (const std::string& f : files) {
    absl::Status st = AddFile(f, page, &r);
    if (!st.ok()) return st;
  }
  return r;
}

absl::Status DropFromPageCache(const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    Fd fd(open(f.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return OpenError(f, errno);
    const int rc = posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
    if (rc != 0) {
      return absl::InternalError(absl::StrCat(
          f, ": posix_fadvise(DONTNEED): ", std::strerror(rc)));
    }
  }
  return absl::OkStatus();
}

}  // namespace powersweep
