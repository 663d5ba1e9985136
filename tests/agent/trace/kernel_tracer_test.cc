// KernelTracer on this machine's real kernel (perf_event_open, tracefs).
// Needs root, as CI and the agent on a board run: the test fails, naming
// why, rather than skipping when it is not.
#include "agent/trace/kernel_tracer.h"

#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

constexpr int kCalls = 1000;
constexpr int kPages = 2000;

// trace_target, started and held at its stdin until Release().
class Target {
 public:
  Target() {
    int in[2];
    EXPECT_EQ(pipe(in), 0);
    file_ = absl::StrCat(TEST_WRITE_DIR, "/trace_target_", getpid(), ".bin");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      close(in[1]);
      const std::string calls = std::to_string(kCalls);
      const std::string pages = std::to_string(kPages);
      execl(TRACE_TARGET, TRACE_TARGET, calls.c_str(), pages.c_str(),
            file_.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    go_ = in[1];
    // Let it reach its read(): attach then sees one process, one thread.
    usleep(50'000);
  }
  ~Target() { unlink(file_.c_str()); }
  int pid() const { return pid_; }
  int ReleaseAndWait() {
    EXPECT_EQ(write(go_, "x", 1), 1);
    close(go_);
    int status = 0;
    waitpid(pid_, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  int pid_ = -1;
  int go_ = -1;
  std::string file_;
};

const v1::TraceCount* Find(const v1::RunTraces& t, v1::Trace kind,
                           const std::string& name) {
  for (const v1::TraceCount& c : t.counts()) {
    if (c.kind() == kind && c.name() == name) return &c;
  }
  return nullptr;
}

int64_t Sum(const v1::RunTraces& t, v1::Trace kind, const std::string& prefix) {
  int64_t sum = 0;
  for (const v1::TraceCount& c : t.counts()) {
    if (c.kind() == kind && c.name().rfind(prefix, 0) == 0) sum += c.bytes();
  }
  return sum;
}

std::string Missing(const v1::RunTraces& t) {
  std::string out;
  for (const v1::TraceMissing& m : t.missing()) {
    absl::StrAppend(&out, TraceText(m.kind()), ": ", m.reason(), "\n");
  }
  return out;
}

TEST(KernelTracerTest, CountsWhatTheWorkloadAndItsThreadsAndChildrenDo) {
  ASSERT_EQ(geteuid(), 0) << "kernel tracing needs root (CI runs as root)";
  Target target;
  KernelTracer tracer;
  std::unique_ptr<TraceSession> session = tracer.Start(
      {v1::TRACE_SYSCALLS, v1::TRACE_BLOCK, v1::TRACE_WRITEBACK,
       v1::TRACE_PAGE_FAULTS, v1::TRACE_SCHED},
      {target.pid()});
  ASSERT_EQ(target.ReleaseAndWait(), 0);
  const v1::RunTraces t = session->Stop();
  EXPECT_EQ(t.missing_size(), 0) << Missing(t);
  EXPECT_EQ(t.requested_size(), 5);

  // Every getppid of the main thread, the thread and the child process.
  const v1::TraceCount* getppid = Find(t, v1::TRACE_SYSCALLS, "getppid");
  ASSERT_NE(getppid, nullptr);
  EXPECT_EQ(getppid->count(), 3 * kCalls);
  EXPECT_FALSE(getppid->system_wide());
  EXPECT_NE(Find(t, v1::TRACE_SYSCALLS, "fdatasync"), nullptr);
  EXPECT_NE(Find(t, v1::TRACE_SYSCALLS, "clone"), nullptr);

  const v1::TraceCount* minor = Find(t, v1::TRACE_PAGE_FAULTS, "minor");
  ASSERT_NE(minor, nullptr);
  EXPECT_GE(minor->count(), kPages);
  EXPECT_NE(Find(t, v1::TRACE_PAGE_FAULTS, "major"), nullptr);
  const v1::TraceCount* switches =
      Find(t, v1::TRACE_SCHED, "context_switches");
  ASSERT_NE(switches, nullptr);
  EXPECT_GE(switches->count(), 1);  // at least its blocking read and wait

  // The 1 MiB written with fdatasync reached the block layer (system-wide,
  // so at least that much).
  EXPECT_GE(Sum(t, v1::TRACE_BLOCK, "issue W"), 1 << 20);
  EXPECT_EQ(t.lost_events(), 0);
  // The write-back settings in force (the study's Table 7).
  EXPECT_EQ(t.vm_settings().count("dirty_writeback_centisecs"), 1u);
  EXPECT_EQ(t.vm_settings().count("dirty_ratio"), 1u);
  EXPECT_GT(t.tracer_cpu_s(), 0);
  EXPECT_LT(t.attach_s(), 1.0);
}

TEST(KernelTracerTest, WithoutTracefsTracepointsAreMissingWithTheReason) {
  ASSERT_EQ(geteuid(), 0) << "kernel tracing needs root (CI runs as root)";
  Target target;
  KernelTracerOptions options;
  options.tracefs_dirs = {"/nonexistent/tracing"};
  options.mount_tracefs = false;
  KernelTracer tracer(options);
  std::unique_ptr<TraceSession> session =
      tracer.Start({v1::TRACE_SYSCALLS, v1::TRACE_PAGE_FAULTS}, {target.pid()});
  ASSERT_EQ(target.ReleaseAndWait(), 0);
  const v1::RunTraces t = session->Stop();
  ASSERT_EQ(t.missing_size(), 1) << Missing(t);
  EXPECT_EQ(t.missing(0).kind(), v1::TRACE_SYSCALLS);
  EXPECT_NE(t.missing(0).reason().find("tracefs is not mounted"),
            std::string::npos)
      << t.missing(0).reason();
  // Software counters need no tracefs.
  const v1::TraceCount* minor = Find(t, v1::TRACE_PAGE_FAULTS, "minor");
  ASSERT_NE(minor, nullptr);
  EXPECT_GE(minor->count(), kPages);
}

TEST(KernelTracerTest, ARunWithoutAProcessHasNothingToFollow) {
  ASSERT_EQ(geteuid(), 0) << "kernel tracing needs root (CI runs as root)";
  KernelTracer tracer;
  std::unique_ptr<TraceSession> session =
      tracer.Start({v1::TRACE_SYSCALLS, v1::TRACE_SCHED, v1::TRACE_WRITEBACK},
                   {});
  const v1::RunTraces t = session->Stop();
  ASSERT_EQ(t.missing_size(), 2) << Missing(t);
  for (const v1::TraceMissing& m : t.missing()) {
    EXPECT_NE(m.reason().find("no workload process"), std::string::npos);
  }
}

TEST(UnsupportedTracerTest, EveryKindMissingWithTheReason) {
  UnsupportedTracer tracer("a twin simulates no kernel");
  const v1::RunTraces t =
      tracer.Start({v1::TRACE_SYSCALLS, v1::TRACE_BLOCK}, {123})->Stop();
  ASSERT_EQ(t.missing_size(), 2);
  EXPECT_EQ(t.missing(1).kind(), v1::TRACE_BLOCK);
  EXPECT_EQ(t.missing(1).reason(), "a twin simulates no kernel");
  EXPECT_EQ(t.counts_size(), 0);
}

}  // namespace
}  // namespace powersweep
