#include "agent/runtime/docker/subprocess.h"

#include <string>

#include "agent/runtime/docker/docker_engine.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

TEST(RunCommandTest, CapturesOutputErrorAndExitCode) {
  absl::StatusOr<CommandResult> r =
      RunCommand({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->Summary(), "err");
}

TEST(RunCommandTest, AHangingCommandIsKilledAtTheTimeout) {
  absl::StatusOr<CommandResult> r = RunCommand({"/bin/sleep", "30"}, 0.2);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->term_signal, 9);
  EXPECT_EQ(r->Summary(), "timed out");
}

TEST(RunCommandTest, AMissingProgramIsExitCode127WithTheReason) {
  absl::StatusOr<CommandResult> r = RunCommand({"/nonexistent/prog"}, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 127);
  EXPECT_EQ(r->Summary(),
            "cannot exec /nonexistent/prog: No such file or directory");
}

TEST(DockerAvailableTest, AMissingClientSaysTheEngineIsNotReachable) {
  absl::Status st = DockerAvailable("/nonexistent/docker");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            "docker engine not reachable: cannot exec /nonexistent/docker: No "
            "such file or directory (is docker.io installed?)");
}

TEST(InspectLineTest, ParsesTheEnginesState) {
  absl::StatusOr<ContainerState> s =
      ParseInspectLine("0916a3 sha256:0f9b running true 28520 0 false\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->id, "0916a3");
  EXPECT_TRUE(s->running);
  EXPECT_EQ(s->pid, 28520);
  s = ParseInspectLine("0916a3 sha256:0f9b exited false 0 137 true");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->exit_code, 137);
  EXPECT_TRUE(s->oom_killed);
  EXPECT_FALSE(ParseInspectLine("garbage").ok());
}

}  // namespace
}  // namespace powersweep
