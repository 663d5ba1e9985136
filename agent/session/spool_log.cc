#include "agent/session/spool_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace powersweep {
namespace {

constexpr uint32_t kMaxRecord = 256u << 20;  // larger is a corrupt length

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutI64(std::string* out, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(u >> (8 * i)));
}
uint64_t GetLE(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return v;
}
uint32_t Crc(const std::string& s) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(s.data()),
            static_cast<uInt>(s.size())));
}

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat("spool ", path, ": ", what, ": ", std::strerror(errno)));
}

absl::Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write", path);
    off += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

std::string Framed(const std::string& payload) {
  std::string rec;
  rec.reserve(payload.size() + 8);
  PutU32(&rec, static_cast<uint32_t>(payload.size()));
  PutU32(&rec, Crc(payload));
  rec += payload;
  return rec;
}

std::string AddPayload(const v1::AgentMessage& msg) {
  std::string payload = "A";
  msg.AppendToString(&payload);
  return payload;
}

// Parses the records of `data`; returns the length of its good prefix.
size_t ParseRecords(const std::string& data, std::vector<SpoolRecord>* out) {
  size_t off = 0;
  while (data.size() - off >= 8) {
    const uint32_t len = static_cast<uint32_t>(GetLE(data.data() + off, 4));
    const uint32_t crc = static_cast<uint32_t>(GetLE(data.data() + off + 4, 4));
    if (len == 0 || len > kMaxRecord || data.size() - off - 8 < len) break;
    std::string payload = data.substr(off + 8, len);
    if (Crc(payload) != crc) break;
    SpoolRecord rec;
    if (payload[0] == 'A') {
      if (!rec.message.ParseFromArray(payload.data() + 1,
                                      static_cast<int>(payload.size() - 1))) {
        break;
      }
    } else if (payload[0] == 'D') {
      rec.is_database = true;
      rec.database_id = payload.substr(1);
    } else if (payload[0] == 'K' && payload.size() == 21) {
      rec.is_ack = true;
      rec.key.run_id = static_cast<int64_t>(GetLE(payload.data() + 1, 8));
      rec.key.attempt = static_cast<int32_t>(GetLE(payload.data() + 9, 4));
      rec.key.seq = static_cast<int64_t>(GetLE(payload.data() + 13, 8));
    } else {
      break;
    }
    out->push_back(std::move(rec));
    off += 8 + len;
  }
  return off;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SpoolLog>> SpoolLog::Open(
    const std::string& path, std::vector<SpoolRecord>* records) {
  const int fd = ::open(path.c_str(),
                        O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("spool ", path, ": not a regular file"));
  }
  std::string data(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::pread(fd, data.data() + got, data.size() - got,
                        static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  data.resize(got);
  const size_t good = ParseRecords(data, records);
  if (good < data.size()) {
    PS_LOG(WARNING) << "spool " << path << ": dropping " << data.size() - good
                    << " bytes after the last complete record";
    if (::ftruncate(fd, static_cast<off_t>(good)) != 0) {
      ::close(fd);
      return Errno("cannot truncate", path);
    }
  }
  if (::lseek(fd, 0, SEEK_END) < 0) {
    ::close(fd);
    return Errno("cannot seek", path);
  }
  return std::unique_ptr<SpoolLog>(
      new SpoolLog(path, fd, static_cast<int64_t>(good)));
}

SpoolLog::~SpoolLog() { ::close(fd_); }

absl::Status SpoolLog::Append(const std::string& payload, bool sync) {
  const std::string rec = Framed(payload);
  absl::Status st = WriteAll(fd_, rec, path_);
  if (!st.ok()) {
    // Cut back a partial record so the file stays parseable.
    if (::ftruncate(fd_, static_cast<off_t>(size_)) == 0) {
      ::lseek(fd_, 0, SEEK_END);
    }
    return st;
  }
  size_ += static_cast<int64_t>(rec.size());
  if (sync && ::fdatasync(fd_) != 0) return Errno("fdatasync", path_);
  return absl::OkStatus();
}

absl::Status SpoolLog::AppendAdd(const v1::AgentMessage& msg) {
  return Append(AddPayload(msg), /*sync=*/true);
}

absl::Status SpoolLog::AppendAck(const SpoolKey& key) {
  std::string payload = "K";
  PutI64(&payload, key.run_id);
  PutU32(&payload, static_cast<uint32_t>(key.attempt));
  PutI64(&payload, key.seq);
  return Append(payload, /*sync=*/false);
}

absl::Status SpoolLog::AppendDatabase(const std::string& database_id) {
  return Append("D" + database_id, /*sync=*/true);
}

absl::Status SpoolLog::Rewrite(const std::string& database_id,
                               const std::vector<v1::AgentMessage>& pending) {
  const std::string tmp = path_ + ".tmp";
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0600);
  if (fd < 0) return Errno("cannot create", tmp);
  std::string data;
  if (!database_id.empty()) data += Framed("D" + database_id);
  for (const v1::AgentMessage& m : pending) data += Framed(AddPayload(m));
  absl::Status st = WriteAll(fd, data, tmp);
  if (st.ok() && ::fdatasync(fd) != 0) st = Errno("fdatasync", tmp);
  ::close(fd);
  if (st.ok() && ::rename(tmp.c_str(), path_.c_str()) != 0) {
    st = Errno("cannot rename to", path_);
  }
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  const int nfd = ::open(path_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (nfd < 0) return Errno("cannot reopen", path_);
  ::lseek(nfd, 0, SEEK_END);
  ::close(fd_);
  fd_ = nfd;
  size_ = static_cast<int64_t>(data.size());
  return absl::OkStatus();
}

absl::Status SpoolLog::Clear() {
  if (::ftruncate(fd_, 0) != 0) return Errno("cannot truncate", path_);
  ::lseek(fd_, 0, SEEK_SET);
  size_ = 0;
  return absl::OkStatus();
}

}  // namespace powersweep
