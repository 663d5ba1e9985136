#include "agent/util/state_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

std::string SafeName(const std::string& id) {
  std::string out = id;
  for (char& c : out) {
    const bool ok = absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  if (out.empty() || out == "." || out == "..") return "_";
  return out;
}

absl::Status FileError(const std::string& path, const std::string& what,
                       int err) {
  if (err == ELOOP) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": is a symlink; refusing to ", what, " it"));
  }
  return absl::FailedPreconditionError(
      absl::StrCat(path, ": cannot ", what, ": ", std::strerror(err)));
}

// Checks an existing directory entry for use as a state dir.
absl::Status CheckExisting(const std::string& path, const std::string& flag) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        flag, ": ", path, ": cannot inspect: ", std::strerror(errno)));
  }
  const char* why = nullptr;
  if (S_ISLNK(st.st_mode)) {
    why = "is a symlink";
  } else if (!S_ISDIR(st.st_mode)) {
    why = "is not a directory";
  } else if (st.st_uid != geteuid()) {
    why = "is not owned by the user the agent runs as";
  } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    why = "is writable by its group or by others";
  }
  if (why == nullptr) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      flag, ": ", path, " ", why,
      "; the agent keeps its state there (as root: the board's restore "
      "file), so give a directory of your own with mode 0700"));
}

}  // namespace

std::string DefaultStateDir(const std::string& device_id, uid_t euid,
                            const char* xdg_state_home, const char* home) {
  const std::string leaf =
      absl::StrCat("/powersweep-agent/", SafeName(device_id));
  if (euid == 0) return "/var/lib" + leaf;
  if (xdg_state_home != nullptr && xdg_state_home[0] == '/') {
    return xdg_state_home + leaf;
  }
  if (home != nullptr && home[0] == '/') {
    return absl::StrCat(home, "/.local/state", leaf);
  }
  // No usable home: the current directory, still never /tmp.
  return absl::StrCat(".local/state", leaf);
}

absl::Status PrepareStateDir(const std::string& path, const std::string& flag) {
  if (path.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(flag, ": the state directory must not be empty"));
  }
  // Create each missing component 0700 (existing parents are left as
  // they are); only the last one is checked as the state dir.
  for (size_t slash = path.find('/', 1); ; slash = path.find('/', slash + 1)) {
    const std::string part =
        slash == std::string::npos ? path : path.substr(0, slash);
    if (!part.empty() && mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::FailedPreconditionError(absl::StrCat(
          flag, ": cannot create ", part, ": ", std::strerror(errno)));
    }
    if (slash == std::string::npos) break;
  }
  return CheckExisting(path, flag);
}

absl::StatusOr<int> OpenStateFile(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return FileError(path, "open", errno);
  return fd;
}

absl::StatusOr<std::optional<std::string>> ReadStateFile(
    const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return FileError(path, "read", errno);
  }
  std::string text;
  char buf[8192];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return FileError(path, "read", err);
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return std::optional<std::string>(std::move(text));
}

absl::Status WriteStateFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  unlink(tmp.c_str());  // a leftover (or a planted symlink) is replaced
  PS_ASSIGN_OR_RETURN(int fd, OpenStateFile(tmp, O_WRONLY | O_CREAT | O_EXCL));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      return FileError(tmp, "write", err);
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    const int err = errno;
    close(fd);
    return FileError(tmp, "write", err);
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return FileError(path, "write", errno);
  }
  return absl::OkStatus();
}

}  // namespace powersweep
