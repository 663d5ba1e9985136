#include "agent/platform/jetson/sysfs_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace powersweep {
namespace jetson {

namespace {

absl::Status ErrnoStatus(const std::string& file, int err, bool writing,
                         const std::string& value) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::FailedPreconditionError(absl::StrCat(
          file, ": missing (no debugfs, secure boot, or another JetPack "
                "layout)"));
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::FailedPreconditionError(absl::StrCat(
          file, ": not ", writing ? "writable" : "readable", " (",
          std::strerror(err), "): run the agent as root"));
    case EINVAL:
    case EBUSY:
    case ERANGE:
      return absl::InvalidArgumentError(absl::StrCat(
          file, ": the kernel rejected \"", value, "\" (", std::strerror(err),
          ")"));
    case EAGAIN:
    case ENODATA:
      // A power-gated sensor (Thor's gpu-thermal): try again later.
      return absl::UnavailableError(absl::StrCat(
          file, ": not answering now (", std::strerror(err),
          "; power-gated?)"));
    default:
      return absl::InternalError(
          absl::StrCat(file, ": ", std::strerror(err)));
  }
}

}  // namespace

RealSysfsIo::RealSysfsIo(const std::string& root) : root_(root) {
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
}

absl::StatusOr<std::string> RealSysfsIo::Read(const std::string& path) {
  const std::string file = Resolve(path);
  int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(file, errno, false, "");
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      int err = errno;
      close(fd);
      return ErrnoStatus(file, err, false, "");
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

absl::Status RealSysfsIo::Write(const std::string& path,
                                const std::string& value) {
  const std::string file = Resolve(path);
  int fd = open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(file, errno, true, value);
  const std::string line = value + "\n";
  ssize_t n = write(fd, line.data(), line.size());
  int err = errno;
  close(fd);
  if (n < 0) return ErrnoStatus(file, err, true, value);
  if (static_cast<size_t>(n) != line.size()) {
    return absl::InternalError(absl::StrCat(file, ": short write"));
  }
  return absl::OkStatus();
}

absl::Status RealSysfsIo::CheckWritable(const std::string& path) {
  const std::string file = Resolve(path);
  if (access(file.c_str(), W_OK) != 0) {
    return ErrnoStatus(file, errno, true, "");
  }
  return absl::OkStatus();
}

bool RealSysfsIo::Exists(const std::string& path) {
  return access(Resolve(path).c_str(), F_OK) == 0;
}

std::vector<std::string> RealSysfsIo::List(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  std::filesystem::directory_iterator it(Resolve(dir), ec);
  if (ec) return names;
  for (const auto& entry : it) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string CleanText(const std::string& text) {
  std::string s = text;
  s.erase(std::remove(s.begin(), s.end(), '\0'), s.end());
  return std::string(absl::StripAsciiWhitespace(s));
}

absl::StatusOr<int64_t> ReadInt(SysfsIo& io, const std::string& path) {
  PS_ASSIGN_OR_RETURN(std::string text, io.Read(path));
  int64_t v = 0;
  if (!absl::SimpleAtoi(CleanText(text), &v)) {
    return absl::InvalidArgumentError(absl::StrCat(
        io.Resolve(path), ": \"", CleanText(text), "\" is not an integer"));
  }
  return v;
}

std::string ReadTextOr(SysfsIo& io, const std::string& path) {
  absl::StatusOr<std::string> text = io.Read(path);
  return text.ok() ? CleanText(*text) : "";
}

absl::StatusOr<std::vector<int64_t>> ParseIntList(const std::string& text) {
  std::vector<int64_t> out;
  for (absl::string_view tok :
       absl::StrSplit(CleanText(text), absl::ByAnyChar(" ,\t\n"),
                      absl::SkipEmpty())) {
    std::vector<absl::string_view> range = absl::StrSplit(tok, '-');
    int64_t lo = 0;
    int64_t hi = 0;
    if (range.size() == 1 && absl::SimpleAtoi(range[0], &lo)) {
      out.push_back(lo);
    } else if (range.size() == 2 && absl::SimpleAtoi(range[0], &lo) &&
               absl::SimpleAtoi(range[1], &hi) && lo <= hi &&
               hi - lo < 4096) {
      for (int64_t v = lo; v <= hi; ++v) out.push_back(v);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", tok, "\" is not an integer or a range"));
    }
  }
  return out;
}

}  // namespace jetson
}  // namespace powersweep
