#include "agent/trace/kernel_tracer.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"
#include "agent/trace/perf_event.h"
#include "agent/trace/trace_aggregate.h"
#include "agent/trace/trace_targets.h"
#include "agent/trace/tracepoint_format.h"

namespace powersweep {
namespace {

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// What a ring's record means, by tracepoint id.
enum class Handler { kSysEnter, kRqInsert, kRqIssue, kWritebackStart };

struct Decoder {
  Handler handler;
  TracepointFormat format;
  const TracepointField* a = nullptr;  // id / nr_sector / reason
  const TracepointField* b = nullptr;  // rwbs
};

struct Counter {
  v1::Trace kind;
  std::string name;
  std::vector<PerfEvent> events;  // one per thread, inherited
};

perf_event_attr TracepointAttr(int id, bool inherit, int wakeup_bytes) {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.config = static_cast<uint64_t>(id);
  attr.sample_period = 1;
  attr.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
  attr.inherit = inherit ? 1 : 0;
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<uint32_t>(wakeup_bytes);
  return attr;
}

perf_event_attr SoftwareCounterAttr(uint64_t config) {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  attr.inherit = 1;
  return attr;
}

class KernelTraceSession : public TraceSession {
 public:
  KernelTraceSession(const KernelTracerOptions& options,
                     const std::vector<v1::Trace>& kinds,
                     const std::vector<int>& pids)
      : options_(options) {
    const double cpu0 = ThreadCpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    for (v1::Trace k : kinds) traces_.add_requested(k);
    Setup(kinds, pids);
    traces_.set_attach_s(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
    caller_cpu_s_ += ThreadCpuSeconds() - cpu0;
    if (!rings_.empty()) {
      wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
      reader_ = std::thread([this] { ReaderLoop(); });
    }
  }

  ~KernelTraceSession() override {
    if (!stopped_) Stop();
  }

  v1::RunTraces Stop() override {
    if (stopped_) return traces_;
    stopped_ = true;
    const double cpu0 = ThreadCpuSeconds();
    for (const PerfEvent& e : sampled_) e.Disable().IgnoreError();
    if (reader_.joinable()) {
      stop_.store(true);
      uint64_t one = 1;
      if (write(wake_fd_, &one, sizeof(one)) < 0) {
        // The reader also wakes on its poll timeout.
      }
      reader_.join();
    }
    DrainAll();  // what arrived after the reader's last pass
    for (const Counter& c : counters_) {
      int64_t total = 0;
      for (const PerfEvent& e : c.events) {
        absl::StatusOr<uint64_t> v = e.ReadCount();
        if (v.ok()) total += static_cast<int64_t>(*v);
      }
      aggregator_.SetCount(c.kind, c.name, /*system_wide=*/false, total);
    }
    v1::RunTraces done = aggregator_.Finish();
    for (int k : traces_.requested()) {
      done.add_requested(static_cast<v1::Trace>(k));
    }
    for (const v1::TraceMissing& m : traces_.missing()) *done.add_missing() = m;
    done.set_attach_s(traces_.attach_s());
    *done.mutable_vm_settings() = traces_.vm_settings();
    rings_.clear();
    sampled_.clear();
    counters_.clear();
    if (wake_fd_ >= 0) close(wake_fd_);
    wake_fd_ = -1;
    caller_cpu_s_ += ThreadCpuSeconds() - cpu0;
    done.set_tracer_cpu_s(caller_cpu_s_ + reader_cpu_s_);
    traces_ = done;
    return traces_;
  }

 private:
  void Missing(v1::Trace kind, const std::string& reason) {
    v1::TraceMissing* m = traces_.add_missing();
    m->set_kind(kind);
    m->set_reason(reason);
  }

  void ReadVmSettings() {
    for (const char* name :
         {"dirty_background_ratio", "dirty_ratio", "dirty_expire_centisecs",
          "dirty_writeback_centisecs"}) {
      std::optional<std::string> text = ReadWholeFile(
          absl::StrCat(options_.proc_root, "/sys/vm/", name));
      int64_t value = 0;
      if (text && absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &value)) {
        (*traces_.mutable_vm_settings())[name] = value;
      }
    }
  }

  // Loads a tracepoint's format and registers its decoder; the error as
  // text when it cannot.
  absl::StatusOr<int> LoadTracepoint(const std::string& tracefs,
                                     const std::string& system,
                                     const std::string& name, Handler handler,
                                     const char* field_a,
                                     const char* field_b) {
    const std::string path =
        absl::StrCat(tracefs, "/events/", system, "/", name, "/format");
    std::optional<std::string> text = ReadWholeFile(path);
    if (!text) {
      return absl::NotFoundError(absl::StrCat(
          "tracepoint ", system, ":", name, " is not in ", tracefs,
          " (the kernel was built without it)"));
    }
    absl::StatusOr<TracepointFormat> format = ParseTracepointFormat(*text);
    if (!format.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", format.status().message()));
    }
    Decoder d{handler, *std::move(format)};
    d.a = d.format.Field(field_a);
    d.b = field_b != nullptr ? d.format.Field(field_b) : nullptr;
    if (d.a == nullptr || (field_b != nullptr && d.b == nullptr)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " has no field '",
                       d.a == nullptr ? field_a : field_b, "'"));
    }
    const int id = d.format.id;
    decoders_.emplace(id, std::move(d));
    return id;
  }

  // Opens a sampled event on `cpu` and sends its records to that CPU's
  // ring (mapping it when it is the CPU's first).
  absl::Status OpenSampled(const perf_event_attr& attr, int pid, int cpu,
                           const std::string& what) {
    absl::StatusOr<PerfEvent> e = PerfEvent::Open(attr, pid, cpu, what);
    if (!e.ok()) return e.status();
    auto it = rings_.find(cpu);
    if (it == rings_.end()) {
      absl::StatusOr<PerfRing> ring = PerfRing::Map(*e, options_.ring_pages);
      if (!ring.ok()) return ring.status();
      rings_.emplace(cpu, *std::move(ring));
    } else {
      // Redirect to the ring's owner: the event whose fd the ring maps.
      const PerfEvent* owner = nullptr;
      for (const PerfEvent& s : sampled_) {
        if (s.fd() == it->second.fd()) owner = &s;
      }
      if (owner == nullptr) return absl::InternalError("ring without owner");
      absl::Status redirected = e->RedirectTo(*owner);
      if (!redirected.ok()) return redirected;
    }
    sampled_.push_back(*std::move(e));
    return absl::OkStatus();
  }

  void Setup(const std::vector<v1::Trace>& kinds,
             const std::vector<int>& pids) {
    std::set<v1::Trace> want(kinds.begin(), kinds.end());
    if (want.count(v1::TRACE_WRITEBACK)) ReadVmSettings();
    const std::vector<int> cpus = OnlineCpus();
    const int wakeup =
        static_cast<int>(sysconf(_SC_PAGESIZE)) * options_.ring_pages / 4;
    const std::vector<int> threads =
        pids.empty() ? std::vector<int>{}
                     : WorkloadThreads(options_.proc_root, pids);

    const bool needs_tracefs = want.count(v1::TRACE_SYSCALLS) > 0 ||
                               want.count(v1::TRACE_BLOCK) > 0 ||
                               want.count(v1::TRACE_WRITEBACK) > 0;
    std::string tracefs;
    std::string tracefs_error;
    if (needs_tracefs) {
      absl::StatusOr<std::string> found =
          FindTracefs(options_.tracefs_dirs, options_.mount_tracefs);
      if (found.ok()) {
        tracefs = *found;
      } else {
        tracefs_error = std::string(found.status().message());
      }
    }

    // System-wide tracepoints first: block, writeback.
    struct Tp {
      v1::Trace kind;
      const char* system;
      const char* name;
      Handler handler;
      const char* field_a;
      const char* field_b;
    };
    const Tp system_wide[] = {
        {v1::TRACE_BLOCK, "block", "block_rq_insert", Handler::kRqInsert,
         "nr_sector", "rwbs"},
        {v1::TRACE_BLOCK, "block", "block_rq_issue", Handler::kRqIssue,
         "nr_sector", "rwbs"},
        {v1::TRACE_WRITEBACK, "writeback", "writeback_start",
         Handler::kWritebackStart, "reason", nullptr},
    };
    std::set<v1::Trace> failed;
    for (const Tp& tp : system_wide) {
      if (!want.count(tp.kind) || failed.count(tp.kind)) continue;
      if (tracefs.empty()) {
        failed.insert(tp.kind);
        Missing(tp.kind, tracefs_error);
        continue;
      }
      absl::StatusOr<int> id = LoadTracepoint(tracefs, tp.system, tp.name,
                                              tp.handler, tp.field_a,
                                              tp.field_b);
      absl::Status st = id.status();
      const std::string what = absl::StrCat(tp.system, ":", tp.name);
      for (size_t i = 0; st.ok() && i < cpus.size(); ++i) {
        st = OpenSampled(TracepointAttr(*id, /*inherit=*/false, wakeup), -1,
                         cpus[i], what);
      }
      if (!st.ok()) {
        failed.insert(tp.kind);
        Missing(tp.kind, std::string(st.message()));
      }
    }

    const bool per_task = want.count(v1::TRACE_SYSCALLS) ||
                          want.count(v1::TRACE_PAGE_FAULTS) ||
                          want.count(v1::TRACE_SCHED);
    if (per_task && threads.empty()) {
      for (v1::Trace k :
           {v1::TRACE_SYSCALLS, v1::TRACE_PAGE_FAULTS, v1::TRACE_SCHED}) {
        if (want.count(k)) {
          Missing(k, pids.empty()
                         ? "the run has no workload process (baseload)"
                         : "the workload's processes had ended before "
                           "tracing could attach");
        }
      }
      return;
    }

    if (want.count(v1::TRACE_SYSCALLS)) {
      absl::Status st;
      if (tracefs.empty()) {
        st = absl::FailedPreconditionError(tracefs_error);
      } else {
        absl::StatusOr<int> id =
            LoadTracepoint(tracefs, "raw_syscalls", "sys_enter",
                           Handler::kSysEnter, "id", nullptr);
        st = id.status();
        bool any = false;
        for (size_t t = 0; st.ok() && t < threads.size(); ++t) {
          for (size_t i = 0; st.ok() && i < cpus.size(); ++i) {
            absl::Status one =
                OpenSampled(TracepointAttr(*id, /*inherit=*/true, wakeup),
                            threads[t], cpus[i], "raw_syscalls:sys_enter");
            if (one.ok()) {
              any = true;
            } else if (one.code() != absl::StatusCode::kNotFound) {
              st = one;  // not a thread that just ended: the kernel refuses
            }
          }
        }
        if (st.ok() && !any) {
          st = absl::NotFoundError("the workload's threads had ended");
        }
      }
      if (!st.ok()) Missing(v1::TRACE_SYSCALLS, std::string(st.message()));
    }

    struct Sw {
      v1::Trace kind;
      const char* name;
      uint64_t config;
    };
    const Sw software[] = {
        {v1::TRACE_PAGE_FAULTS, "minor", PERF_COUNT_SW_PAGE_FAULTS_MIN},
        {v1::TRACE_PAGE_FAULTS, "major", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
        {v1::TRACE_SCHED, "context_switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
        {v1::TRACE_SCHED, "cpu_migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
    };
    for (const Sw& sw : software) {
      if (!want.count(sw.kind) || failed.count(sw.kind)) continue;
      Counter c{sw.kind, sw.name, {}};
      absl::Status st;
      for (int tid : threads) {
        absl::StatusOr<PerfEvent> e = PerfEvent::Open(
            SoftwareCounterAttr(sw.config), tid, -1,
            absl::StrCat("software counter ", sw.name));
        if (e.ok()) {
          c.events.push_back(*std::move(e));
        } else if (e.status().code() != absl::StatusCode::kNotFound) {
          st = e.status();
          break;
        }
      }
      if (!st.ok() || c.events.empty()) {
        failed.insert(sw.kind);
        Missing(sw.kind, st.ok() ? "the workload's threads had ended"
                                 : std::string(st.message()));
        // Drop the kind's counters opened before (a partial count would
        // mislead).
        for (auto it = counters_.begin(); it != counters_.end();) {
          it = it->kind == sw.kind ? counters_.erase(it) : it + 1;
        }
        continue;
      }
      counters_.push_back(std::move(c));
    }
  }

  void OnRecord(const perf_event_header& header, const uint8_t* body,
                size_t size) {
    if (header.type == PERF_RECORD_LOST) {
      if (size >= 16) {
        uint64_t lost = 0;
        std::memcpy(&lost, body + 8, sizeof(lost));
        aggregator_.AddLost(static_cast<int64_t>(lost));
      }
      return;
    }
    if (header.type != PERF_RECORD_SAMPLE || size < 12) return;
    uint64_t time_ns = 0;
    uint32_t raw_size = 0;
    std::memcpy(&time_ns, body, 8);
    std::memcpy(&raw_size, body + 8, 4);
    if (12 + static_cast<size_t>(raw_size) > size || raw_size < 2) return;
    const uint8_t* raw = body + 12;
    uint16_t type = 0;
    std::memcpy(&type, raw, 2);
    auto it = decoders_.find(type);
    if (it == decoders_.end()) return;
    const Decoder& d = it->second;
    std::optional<int64_t> a = ReadField(*d.a, raw, raw_size);
    if (!a) return;
    switch (d.handler) {
      case Handler::kSysEnter:
        aggregator_.AddSyscall(*a);
        break;
      case Handler::kRqInsert:
      case Handler::kRqIssue: {
        const std::string rwbs = ReadCharField(*d.b, raw, raw_size);
        aggregator_.AddBlock(d.handler == Handler::kRqInsert,
                             rwbs.empty() ? '?' : rwbs[0], *a * 512);
        break;
      }
      case Handler::kWritebackStart: {
        auto sym = d.format.symbols.find("reason");
        std::string reason;
        if (sym != d.format.symbols.end()) {
          auto name = sym->second.find(*a);
          if (name != sym->second.end()) reason = name->second;
        }
        if (reason.empty()) reason = absl::StrCat("reason_", *a);
        aggregator_.AddWriteback(reason, static_cast<int64_t>(time_ns));
        break;
      }
    }
  }

  void DrainAll() {
    for (auto& [cpu, ring] : rings_) {
      ring.Drain([this](const perf_event_header& h, const uint8_t* body,
                        size_t size) { OnRecord(h, body, size); });
    }
  }

  void ReaderLoop() {
    std::vector<pollfd> fds;
    for (auto& [cpu, ring] : rings_) fds.push_back({ring.fd(), POLLIN, 0});
    fds.push_back({wake_fd_, POLLIN, 0});
    const int timeout_ms = static_cast<int>(options_.poll_s * 1000);
    while (!stop_.load()) {
      poll(fds.data(), fds.size(), timeout_ms > 0 ? timeout_ms : 100);
      DrainAll();
    }
    reader_cpu_s_ = ThreadCpuSeconds();
  }

  const KernelTracerOptions options_;
  v1::RunTraces traces_;  // requested, missing, attach_s; all after Stop
  std::unordered_map<int, Decoder> decoders_;
  std::vector<PerfEvent> sampled_;
  std::map<int, PerfRing> rings_;  // by CPU
  std::vector<Counter> counters_;
  TraceAggregator aggregator_;  // the reader's until it is joined
  std::thread reader_;
  std::atomic<bool> stop_{false};
  int wake_fd_ = -1;
  bool stopped_ = false;
  double caller_cpu_s_ = 0;
  double reader_cpu_s_ = 0;  // written by the reader before it ends
};

}  // namespace

KernelTracer::KernelTracer(KernelTracerOptions options)
    : options_(std::move(options)) {}

std::unique_ptr<TraceSession> KernelTracer::Start(
    const std::vector<v1::Trace>& kinds, const std::vector<int>& pids) {
  return std::make_unique<KernelTraceSession>(options_, kinds, pids);
}

}  // namespace powersweep
