#include "agent/trace/perf_event.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace powersweep {
namespace {

std::string Hint(int err) {
  if (err == EACCES || err == EPERM) {
    std::string paranoid = "?";
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    if (in) std::getline(in, paranoid);
    return absl::StrCat(" (kernel.perf_event_paranoid is ", paranoid,
                        "; tracepoints need root or CAP_PERFMON)");
  }
  if (err == ENOENT || err == EINVAL || err == EOPNOTSUPP) {
    return " (this kernel does not offer the event)";
  }
  if (err == EMFILE || err == ENFILE) return " (out of file descriptors)";
  return "";
}

}  // namespace

PerfEvent::~PerfEvent() {
  if (fd_ >= 0) close(fd_);
}

PerfEvent::PerfEvent(PerfEvent&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

PerfEvent& PerfEvent::operator=(PerfEvent&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

absl::StatusOr<PerfEvent> PerfEvent::Open(perf_event_attr attr, pid_t pid,
                                          int cpu, absl::string_view what) {
  attr.size = sizeof(attr);
  const long fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
                          PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    const std::string message =
        absl::StrCat("perf_event_open(", what, ", pid ", pid, ", cpu ", cpu,
                     "): ", std::strerror(err), Hint(err));
    if (err == ESRCH) return absl::NotFoundError(message);
    if (err == EACCES || err == EPERM) {
      return absl::PermissionDeniedError(message);
    }
    return absl::UnavailableError(message);
  }
  return PerfEvent(static_cast<int>(fd));
}

absl::StatusOr<uint64_t> PerfEvent::ReadCount() const {
  uint64_t value = 0;
  const ssize_t n = read(fd_, &value, sizeof(value));
  if (n != static_cast<ssize_t>(sizeof(value))) {
    return absl::InternalError(
        absl::StrCat("reading a perf counter: ",
                     n < 0 ? std::strerror(errno) : "short read"));
  }
  return value;
}

absl::Status PerfEvent::RedirectTo(const PerfEvent& owner) const {
  if (ioctl(fd_, PERF_EVENT_IOC_SET_OUTPUT, owner.fd_) != 0) {
    return absl::InternalError(
        absl::StrCat("PERF_EVENT_IOC_SET_OUTPUT: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status PerfEvent::Disable() const {
  if (ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0) != 0) {
    return absl::InternalError(
        absl::StrCat("PERF_EVENT_IOC_DISABLE: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

PerfRing::~PerfRing() {
  if (base_ != nullptr) munmap(base_, mapped_bytes_);
}

PerfRing::PerfRing(PerfRing&& other) noexcept { *this = std::move(other); }

PerfRing& PerfRing::operator=(PerfRing&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) munmap(base_, mapped_bytes_);
    base_ = other.base_;
    mapped_bytes_ = other.mapped_bytes_;
    data_bytes_ = other.data_bytes_;
    data_offset_ = other.data_offset_;
    fd_ = other.fd_;
    wrap_ = std::move(other.wrap_);
    other.base_ = nullptr;
    other.fd_ = -1;
  }
  return *this;
}

absl::StatusOr<PerfRing> PerfRing::Map(const PerfEvent& event, int data_pages) {
  if (data_pages <= 0 || (data_pages & (data_pages - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ring pages must be a power of two, got ", data_pages));
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = page * (1 + static_cast<size_t>(data_pages));
  void* base =
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, event.fd(), 0);
  if (base == MAP_FAILED) {
    return absl::UnavailableError(
        absl::StrCat("mmap of a perf ring buffer (", bytes,
                     " bytes): ", std::strerror(errno),
                     errno == EPERM ? " (kernel.perf_event_mlock_kb)" : ""));
  }
  PerfRing ring;
  ring.base_ = base;
  ring.mapped_bytes_ = bytes;
  auto* meta = static_cast<perf_event_mmap_page*>(base);
  ring.data_offset_ = meta->data_offset != 0 ? meta->data_offset : page;
  ring.data_bytes_ =
      meta->data_size != 0 ? meta->data_size : page * data_pages;
  ring.fd_ = event.fd();
  return ring;
}

int64_t PerfRing::Drain(const RecordFn& on_record) {
  if (base_ == nullptr) return 0;
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  const uint64_t head =
      __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  const uint8_t* data = static_cast<const uint8_t*>(base_) + data_offset_;
  int64_t records = 0;
  while (tail < head) {
    const size_t at = static_cast<size_t>(tail % data_bytes_);
    perf_event_header header;
    // The header itself may wrap.
    for (size_t i = 0; i < sizeof(header); ++i) {
      reinterpret_cast<uint8_t*>(&header)[i] = data[(at + i) % data_bytes_];
    }
    if (header.size < sizeof(header) || tail + header.size > head) break;
    const uint8_t* record = data + at;
    if (at + header.size > data_bytes_) {
      wrap_.resize(header.size);
      const size_t first = data_bytes_ - at;
      std::memcpy(wrap_.data(), data + at, first);
      std::memcpy(wrap_.data() + first, data, header.size - first);
      record = wrap_.data();
    }
    on_record(header, record + sizeof(header), header.size - sizeof(header));
    tail += header.size;
    ++records;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
  return records;
}

std::vector<int> OnlineCpus() {
  std::vector<int> cpus;
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string text;
  if (in && std::getline(in, text)) {
    for (absl::string_view range :
         absl::StrSplit(absl::StripAsciiWhitespace(text), ',')) {
      std::pair<absl::string_view, absl::string_view> ab =
          absl::StrSplit(range, absl::MaxSplits('-', 1));
      int a = 0;
      int b = 0;
      if (!absl::SimpleAtoi(ab.first, &a)) continue;
      if (ab.second.empty()) {
        b = a;
      } else if (!absl::SimpleAtoi(ab.second, &b)) {
        continue;
      }
      for (int c = a; c <= b; ++c) cpus.push_back(c);
    }
  }
  if (cpus.empty()) {
    const long n = sysconf(_SC_NPROCESSORS_CONF);
    for (int c = 0; c < (n > 0 ? n : 1); ++c) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace powersweep
