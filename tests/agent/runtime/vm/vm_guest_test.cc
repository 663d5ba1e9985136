// The vm runtime's parts that need no QEMU: finding the guest image,
// choosing the accelerator, QEMU's command line and the script the guest
// runs (executed here by /bin/sh, as the guest does).
#include "agent/runtime/vm/vm_guest.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/runtime/vm/vm_runtime.h"
#include "agent/runtime/vm/vm_setup.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

std::string Dir(const std::string& name) {
  const std::string d =
      (std::filesystem::path(testing::TempDir()) / "vm_guest_test" / name)
          .lexically_normal()
          .string();
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string MakeGuest(const std::string& name) {
  const std::string d = Dir(name);
  Write(d + "/vmlinuz", "kernel");
  Write(d + "/initrd.img", "initrd");
  Write(d + "/GUEST", "kernel linux-image-6.1.0-56-amd64 6.1.192-2; busybox ab\n");
  return d;
}

TEST(VmGuestTest, FindsTheFirstCompleteGuestAndNamesEveryFolderWhenNone) {
  const std::string partial = Dir("partial");
  Write(partial + "/vmlinuz", "kernel");  // no initrd, no GUEST
  const std::string full = MakeGuest("full");
  absl::StatusOr<VmGuest> g = FindVmGuest({partial, full});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->kernel, full + "/vmlinuz");
  EXPECT_EQ(g->initrd, full + "/initrd.img");
  EXPECT_EQ(g->description,
            "kernel linux-image-6.1.0-56-amd64 6.1.192-2; busybox ab");
  absl::StatusOr<VmGuest> none = FindVmGuest({partial, "/nonexistent"});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("--vm_image"));
  EXPECT_THAT(none.status().message(), HasSubstr(partial));
  EXPECT_THAT(none.status().message(), HasSubstr("make vm-image"));
}

TEST(VmGuestTest, AcceleratorIsKvmOnlyWhereKvmCanBootAStockKernel) {
  const std::string modules = Dir("modules");
  const std::string kvm = Dir("dev") + "/kvm";
  Write(kvm, "");  // openable read-write, as /dev/kvm is for root
  absl::StatusOr<VmAccel> a = ChooseVmAccel("auto", kvm, modules);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->accel, "kvm");
  // PVM's KVM: no vm runs unless emulated, and kvm is refused.
  std::filesystem::create_directories(modules + "/kvm_pvm");
  a = ChooseVmAccel("auto", kvm, modules);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->accel, "");
  EXPECT_THAT(a->reason, HasSubstr("PVM"));
  EXPECT_THAT(a->reason, HasSubstr("--vm_accel=tcg"));
  absl::StatusOr<VmAccel> k = ChooseVmAccel("kvm", kvm, modules);
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("--vm_accel=kvm"));
  // No device: the reason says which.
  a = ChooseVmAccel("auto", "/nonexistent/kvm", Dir("none"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->accel, "");
  EXPECT_THAT(a->reason, HasSubstr("/nonexistent/kvm"));
  // tcg is always possible and says what it costs.
  a = ChooseVmAccel("tcg", "/nonexistent/kvm", modules);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->accel, "tcg");
  EXPECT_THAT(a->reason, HasSubstr("not comparable"));
  absl::StatusOr<VmAccel> bad = ChooseVmAccel("xen", kvm, modules);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("--vm_accel"));
}

TEST(VmGuestTest, DiscoveryOffersVmsOnlyWithQemuGuestAndAccelerator) {
  VmOptions o;
  o.qemu = "/bin/true";
  o.default_image_dirs = {MakeGuest("discovered")};
  o.accel = "tcg";
  o.cores = 6;
  absl::StatusOr<VmSetup> s = DiscoverVms(o);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->enabled);
  EXPECT_EQ(s->default_vcpus, 6);
  EXPECT_EQ(s->config.accel.accel, "tcg");
  o.qemu = "/nonexistent/qemu-system-x86_64";
  s = DiscoverVms(o);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->enabled);
  EXPECT_THAT(s->why_not, HasSubstr("qemu-system-x86"));
  // An explicit --vm_image that is not there is an error, not a quiet no.
  o.qemu = "/bin/true";
  o.image = "/nonexistent/guest";
  absl::StatusOr<VmSetup> e = DiscoverVms(o);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("--vm_image"));
}

TEST(VmGuestTest, QemuGetsTheSizeTheAcceleratorTheRunScriptAndThePorts) {
  VmRuntimeConfig c;
  c.qemu = "/usr/bin/qemu-system-x86_64";
  c.guest.kernel = "/g/vmlinuz";
  c.guest.initrd = "/g/initrd.img";
  c.accel.accel = "tcg";
  VmLaunch l;
  l.vcpus = 3;
  l.memory_mib = 2048;
  l.run_script = "/w/run-1.vm/run.sh";
  l.console_log = "/w/run-1.vm/console.log";
  l.stderr_log = "/w/run-1.log";
  l.exit_file = "/w/run-1.vm/exit";
  l.phases_file = "/w/run-1.vm/phases";
  l.name = "run-1";
  const std::vector<std::string> argv = QemuArgv(c, l);
  const std::string line = absl::StrJoin(argv, " ");
  EXPECT_EQ(argv[0], c.qemu);
  EXPECT_THAT(line, HasSubstr("-accel tcg,thread=multi -cpu max"));
  EXPECT_THAT(line, HasSubstr("-smp 3 -m 2048"));
  EXPECT_THAT(line, HasSubstr("-kernel /g/vmlinuz -initrd /g/initrd.img"));
  EXPECT_THAT(line, HasSubstr("powersweep.run=/w/run-1.vm/run.sh"));
  EXPECT_THAT(line, HasSubstr("path=/dev/fd/3,append=on"));
  EXPECT_THAT(line, HasSubstr("path=/w/run-1.log,append=on"));
  EXPECT_THAT(line, HasSubstr("readonly=on"));
  EXPECT_THAT(line, HasSubstr("file,id=phases,path=/w/run-1.vm/phases "
                              "-device virtserialport,chardev=phases,"
                              "name=powersweep.phases"));
  c.accel.accel = "kvm";
  EXPECT_THAT(absl::StrJoin(QemuArgv(c, l), " "),
              HasSubstr("-accel kvm -cpu host"));
}

TEST(VmGuestTest, TheRunScriptRunsTheArgvWordForWordWithTheEnvironment) {
  const std::string d = Dir("script");
  const std::string out = d + "/out";
  // /bin/sh -c prints each argument on its own line, then the variable.
  const std::vector<std::string> argv = {
      "/bin/sh", "-c",
      "for a in \"$@\"; do echo \"[$a]\"; done; echo \"$POWERSWEEP_X\"; pwd",
      "sh", "it's", "two words", "$HOME", "a\"b"};
  const std::string script = VmRunScript(
      argv, d, {{"POWERSWEEP_X", "x 'y' $z"}, {"BAD-NAME", "skipped"}});
  EXPECT_THAT(script, ::testing::Not(HasSubstr("BAD-NAME")));
  Write(d + "/run.sh", script);
  // TMPDIR is the guest's tmpfs (/run): point it here for the host's sh.
  const std::string cmd = absl::StrCat(
      "sed 's|/run/powersweep-tmp|", d, "/tmp|' ", d, "/run.sh > ", d,
      "/host.sh && /bin/sh ", d, "/host.sh > ", out);
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(out);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  EXPECT_EQ(lines, (std::vector<std::string>{"[it's]", "[two words]",
                                             "[$HOME]", "[a\"b]", "x 'y' $z",
                                             d}));
}

TEST(VmGuestTest, AVmLargerThanTheHostIsRefusedNamingTheField) {
  RealClock clock;
  v1::VmSpec vm;
  vm.set_memory_mib(1 << 30);  // 1 PiB
  VmRuntime rt(&clock, VmRuntimeConfig(), vm, 1);
  RuntimeSpec spec;
  spec.argv = {"/bin/true"};
  spec.stderr_log_path = Dir("too-large") + "/run.log";
  absl::Status st = rt.Start(spec, [](const v1::WorkloadEvent&) {});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("vm.memory_mib: 1073741824 MiB is more "
                                      "than this host's memory"));
}

}  // namespace
}  // namespace powersweep
