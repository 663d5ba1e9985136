// container_in_vm's parts that need no QEMU: the script the guest runs
// (executed here by /bin/sh with stand-ins for dockerd, docker and mount
// first on PATH, as the guest runs it with the real ones), and the cache of
// image archives the guests load (over FakeContainerEngine).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/runtime/docker/fake_container_engine.h"
#include "agent/runtime/vm/guest_image_archive.h"
#include "agent/runtime/vm/vm_script.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Dir(const std::string& name) {
  const std::string d =
      (std::filesystem::path(testing::TempDir()) / "vm_container_test" / name)
          .lexically_normal()
          .string();
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// A bin/ of stand-ins: `dockerd` stays up (or exits at once when
// `engine_dies`), `docker` logs its argv to calls.txt, answers `version`,
// and for `run` writes a record line to stdout and exits 7; `mount` logs.
std::string FakeTools(const std::string& d, bool engine_dies) {
  const std::string bin = d + "/bin";
  std::filesystem::create_directories(bin);
  Write(bin + "/dockerd",
        engine_dies ? "#!/bin/sh\necho 'no cgroups' >&2\nexit 1\n"
                    : absl::StrCat("#!/bin/sh\ntouch ", d,
                                   "/engine-up\nexec sleep 30\n"));
  Write(bin + "/docker",
        absl::StrCat("#!/bin/sh\ncase \"$1\" in\n"
                     "  version) [ -e ", d, "/engine-up ]; exit $? ;;\n"
                     "esac\n"
                     "echo \"$*\" >> ", d, "/calls.txt\n",
                     "case \"$1\" in\n"
                     "  run) echo '{\"minibatch\":{\"index\":0}}'; exit 7 ;;\n"
                     "esac\nexit 0\n"));
  Write(bin + "/mount",
        absl::StrCat("#!/bin/sh\necho \"mount $*\" >> ", d, "/calls.txt\n"));
  for (const char* tool : {"dockerd", "docker", "mount"}) {
    std::filesystem::permissions(bin + "/" + tool,
                                 std::filesystem::perms::owner_all);
  }
  return bin;
}

// Runs `script` as the guest does (fd 3 records, fd 4 phases), with the
// guest's /run paths moved under `d`; returns the exit code.
int RunAsGuest(const std::string& d, const std::string& script) {
  Write(d + "/run.sh", script);
  const std::string cmd = absl::StrCat(
      "sed 's|/run/|", d, "/run/|g' ", d, "/run.sh > ", d,
      "/host.sh && /bin/sh ", d, "/host.sh 3>", d, "/records 4>", d,
      "/phases 2>", d, "/stderr");
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

VmContainer Container(const std::string& archive) {
  return {"sha256:abc", archive,
          {"run", "--name", "ps-host-r1-a1-t0", "--network", "none",
           "sha256:abc", "/usr/local/bin/powersweep-workload", "--records-fd",
           "1"}};
}

TEST(VmContainerScriptTest, StartsTheEngineLoadsTheImageAndRunsTheContainer) {
  const std::string d = Dir("runs");
  const std::string bin = FakeTools(d, /*engine_dies=*/false);
  const std::string script = VmContainerScript(
      Container("/archives/it's.tar"), d,
      {{"PATH", bin + ":/usr/bin:/bin"}, {"DOCKER_HOST", "tcp://elsewhere"}});
  // The workload's exit code is the run's; its stdout (the records) fd 3.
  EXPECT_EQ(RunAsGuest(d, script), 7) << Read(d + "/stderr");
  EXPECT_EQ(Read(d + "/records"), "{\"minibatch\":{\"index\":0}}\n");
  const std::vector<std::string> calls = Lines(d + "/calls.txt");
  ASSERT_GE(calls.size(), 3u) << Read(d + "/calls.txt");
  EXPECT_THAT(calls[0], StartsWith("mount -t tmpfs -o size=80%,mode=0700"));
  EXPECT_THAT(calls, ::testing::Contains("load -q -i /archives/it's.tar"));
  EXPECT_EQ(calls.back(),
            "run --name ps-host-r1-a1-t0 --network none sha256:abc "
            "/usr/local/bin/powersweep-workload --records-fd 1");
  // Both phases, in order, with the guest's uptime.
  const std::vector<std::string> phases = Lines(d + "/phases");
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_THAT(phases[0], StartsWith("engine_ready "));
  EXPECT_THAT(phases[1], StartsWith("image_loaded "));
  // The engine is the guest's own, not the agent's DOCKER_HOST.
  EXPECT_THAT(script, HasSubstr("export DOCKER_HOST=\"unix://$D/docker.sock\""));
  EXPECT_THAT(script, HasSubstr("--bridge=none --iptables=false"));
}

TEST(VmContainerScriptTest, AnEngineThatExitsFailsTheRunWithItsLog) {
  const std::string d = Dir("dies");
  const std::string bin = FakeTools(d, /*engine_dies=*/true);
  const std::string script = VmContainerScript(
      Container("/a.tar"), d, {{"PATH", bin + ":/usr/bin:/bin"}});
  EXPECT_EQ(RunAsGuest(d, script), 125);
  const std::string err = Read(d + "/stderr");
  EXPECT_THAT(err, HasSubstr("no cgroups"));
  EXPECT_THAT(err, HasSubstr("powersweep-vm: the guest's Docker engine (the "
                             "host's dockerd) exited"));
  EXPECT_EQ(Read(d + "/records"), "");
}

TEST(GuestImageArchivesTest, AnImageIsSavedOnceAndReplacesOtherImages) {
  const std::string d = Dir("archives");
  FakeContainerEngine engine;
  engine.AddImage("powersweep-workload:local", "sha256:aa11", "/bin/true");
  engine.AddImage("powersweep-workload:old", "sha256:bb22", "/bin/true");
  GuestImageArchives archives(&engine, d + "/vm-images");
  absl::StatusOr<std::string> old = archives.ArchiveOf("sha256:bb22");
  ASSERT_TRUE(old.ok()) << old.status();
  absl::StatusOr<std::string> a = archives.ArchiveOf("sha256:aa11");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a, d + "/vm-images/aa11.tar");
  EXPECT_EQ(Read(*a), "fake image archive of sha256:aa11\n");
  EXPECT_FALSE(std::filesystem::exists(*old));  // one image's archive kept
  absl::StatusOr<std::string> again = archives.ArchiveOf("sha256:aa11");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *a);
  int saves = 0;
  for (const std::string& call : engine.Calls()) {
    saves += call.rfind("save sha256:aa11 ", 0) == 0;
  }
  EXPECT_EQ(saves, 1);
}

TEST(GuestImageArchivesTest, ErrorsNameTheImageOrTheId) {
  const std::string d = Dir("errors");
  FakeContainerEngine engine;
  GuestImageArchives archives(&engine, d + "/vm-images");
  absl::StatusOr<std::string> bad = archives.ArchiveOf("../../etc/passwd");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("is not sha256:<hex>"));
  absl::StatusOr<std::string> missing = archives.ArchiveOf("sha256:cc33");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("image sha256:cc33 is not present"));
  // Nothing half-written is left behind.
  EXPECT_TRUE(std::filesystem::is_empty(d + "/vm-images"));
}

}  // namespace
}  // namespace powersweep
