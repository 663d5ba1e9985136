#include "agent/runtime/vm/vm_runtime.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace powersweep {
namespace {

// The guest /init's exit code when it could not run the workload.
constexpr int kGuestInitFailed = 125;

bool HasSpace(const std::string& s) {
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> QemuArgv(const VmRuntimeConfig& config,
                                  const VmLaunch& launch) {
  const bool kvm = config.accel.accel == "kvm";
  std::vector<std::string> argv = {
      config.qemu, "-name", launch.name, "-nodefaults", "-no-user-config",
      "-machine", "q35",
      "-accel", kvm ? "kvm" : "tcg,thread=multi",
      // TCG: every feature QEMU can emulate (AVX2 for LibTorch).
      "-cpu", kvm ? "host" : "max",
      "-smp", absl::StrCat(launch.vcpus),
      "-m", absl::StrCat(launch.memory_mib),
      "-display", "none", "-vga", "none", "-no-reboot",
      "-kernel", config.guest.kernel, "-initrd", config.guest.initrd,
      "-append",
      absl::StrCat("console=ttyS0 quiet loglevel=3 panic=-1 powersweep.run=",
                   launch.run_script),
      "-chardev",
      absl::StrCat("file,id=console,path=", launch.console_log),
      "-serial", "chardev:console",
      "-virtfs",
      "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,"
      "multidevs=remap",
      "-device", "virtio-serial-pci",
      "-chardev", absl::StrCat("file,id=records,path=/dev/fd/", kRecordsFd,
                               ",append=on"),
      "-device", "virtserialport,chardev=records,name=powersweep.records",
      "-chardev",
      absl::StrCat("file,id=stderr,path=",
                   launch.stderr_log.empty() ? "/dev/null" : launch.stderr_log,
                   ",append=on"),
      "-device", "virtserialport,chardev=stderr,name=powersweep.stderr",
      "-chardev", absl::StrCat("file,id=exit,path=", launch.exit_file),
      "-device", "virtserialport,chardev=exit,name=powersweep.exit",
      "-chardev", absl::StrCat("file,id=phases,path=", launch.phases_file),
      "-device", "virtserialport,chardev=phases,name=powersweep.phases"};
  if (!launch.data_disk.empty()) {
    argv.insert(argv.end(),
                {"-drive", absl::StrCat("file=", launch.data_disk,
                                        ",if=virtio,format=raw,readonly=on")});
  }
  return argv;
}

VmRuntime::VmRuntime(Clock* clock, VmRuntimeConfig config, v1::VmSpec vm,
                     int default_vcpus,
                     std::optional<VmContainerRun> container,
                     std::optional<VmDataMount> data)
    : clock_(clock),
      config_(std::move(config)),
      vm_(std::move(vm)),
      default_vcpus_(default_vcpus),
      container_(std::move(container)),
      data_(std::move(data)),
      qemu_(clock) {}

absl::Status VmRuntime::Start(const RuntimeSpec& spec,
                              RecordCallback callback) {
  if (spec.argv.empty()) {
    return absl::InvalidArgumentError("vm: no workload argv");
  }
  const std::string base = spec.stderr_log_path.empty()
                               ? absl::StrCat("/tmp/powersweep-vm-", getpid())
                               : spec.stderr_log_path;
  // Absolute: the guest reads the script from / (the agent's work dir may
  // be relative to the agent's cwd, as the demo's is).
  std::error_code ec;
  const std::string dir =
      std::filesystem::absolute(base + ".vm", ec).lexically_normal().string();
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("vm: cannot create ", dir, ": ", ec.message()));
  }
  launch_.vcpus = vm_.vcpus() > 0                ? vm_.vcpus()
                  : !spec.cpus.empty()           ? static_cast<int>(spec.cpus.size())
                                                 : std::max(1, default_vcpus_);
  launch_.memory_mib = vm_.memory_mib() > 0 ? vm_.memory_mib() : kVmDefaultMemoryMib;
  const int64_t host_mib =
      static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) >> 20;
  if (host_mib > 0 && launch_.memory_mib > host_mib) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vm.memory_mib: ", launch_.memory_mib,
        " MiB is more than this host's memory (", host_mib, " MiB)"));
  }
  launch_.run_script = dir + "/run.sh";
  launch_.console_log = dir + "/console.log";
  launch_.exit_file = dir + "/exit";
  launch_.phases_file = dir + "/phases";
  std::string data_mount;
  if (data_.has_value() && !data_->disk.empty()) {
    if (absl::StrContains(data_->disk, ',')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "vm: the data disk's path holds a comma (QEMU's -drive cannot "
          "take it): ", data_->disk));
    }
    launch_.data_disk = data_->disk;
    data_mount = data_->path;
  }
  launch_.stderr_log =
      spec.stderr_log_path.empty()
          ? ""
          : std::filesystem::absolute(spec.stderr_log_path, ec).string();
  launch_.name = std::filesystem::path(base).filename().string();
  if (HasSpace(launch_.run_script)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vm: the run's directory has white space (the guest's kernel command "
        "line cannot carry it): ", dir));
  }
  std::filesystem::remove(launch_.exit_file, ec);
  std::filesystem::remove(launch_.console_log, ec);
  std::filesystem::remove(launch_.phases_file, ec);
  char cwd[4096];
  const std::string here = getcwd(cwd, sizeof(cwd)) != nullptr ? cwd : "/";
  std::string text;
  if (container_.has_value()) {
    DockerRunInput input;
    input.name = ContainerName(container_->config.name_prefix,
                               container_->request);
    input.image_ref = container_->image_id;
    input.requested_image = container_->request.image;
    input.device_id = container_->request.device_id;
    input.uid = static_cast<int>(getuid());
    input.gid = static_cast<int>(getgid());
    RuntimeSpec in_guest = spec;
    in_guest.cpus.clear();  // the guest's vCPUs are not the host's CPUs
    absl::StatusOr<std::vector<std::string>> args = BuildDockerRunArgs(
        container_->config, container_->request, input, in_guest);
    if (!args.ok()) return args.status();
    text = VmContainerScript(
        {container_->image_id, container_->image_archive, *std::move(args)},
        here, AgentEnvironment(), data_mount);
  } else {
    text = VmRunScript(spec.argv, here, AgentEnvironment(), data_mount);
  }
  {
    std::ofstream script(launch_.run_script, std::ios::trunc);
    script << text;
    if (!script) {
      return absl::FailedPreconditionError(
          absl::StrCat("vm: cannot write ", launch_.run_script));
    }
  }
  RuntimeSpec qspec = spec;
  qspec.argv = QemuArgv(config_, launch_);
  start_ns_ = clock_->MonotonicNanos();
  return qemu_.Start(qspec, [this, callback = std::move(callback)](
                                const v1::WorkloadEvent& e) {
    int64_t zero = 0;
    first_record_ns_.compare_exchange_strong(zero, clock_->MonotonicNanos());
    callback(e);
  });
}

ExitStatus VmRuntime::Wait() {
  ExitStatus st = qemu_.Wait();
  if (st.term_signal != 0 || st.timed_out || st.cancelled) return st;
  std::ifstream in(launch_.exit_file);
  std::string text;
  std::getline(in, text);
  int code = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &code)) {
    // QEMU ended without the guest saying how the workload ended.
    if (st.exit_code == 0) {
      st.exit_code = kGuestInitFailed;
      const std::string console = LastLineOfFile(launch_.console_log);
      st.last_stderr_line = absl::StrCat(
          "the VM ended without the workload's exit code",
          console.empty() ? "" : "; its console's last line: ", console);
    }
    return st;
  }
  st.exit_code = code;
  // 125: the guest's /init failed (the console says why), or, in a
  // container_in_vm run, the guest's script or `docker run` (its stderr
  // says why).
  if (code == kGuestInitFailed &&
      (!container_.has_value() || st.last_stderr_line.empty())) {
    const std::string console = LastLineOfFile(launch_.console_log);
    if (!console.empty()) st.last_stderr_line = console;
  }
  return st;
}

v1::VmRun VmRuntime::VmInfo() const {
  v1::VmRun info;
  info.set_accel(config_.accel.accel);
  info.set_accel_reason(config_.accel.reason);
  info.set_vcpus(launch_.vcpus);
  info.set_memory_mib(launch_.memory_mib);
  // "kernel linux-image-6.1.0-56-amd64 6.1.192-2; busybox ..." -> the
  // package and version.
  std::string kernel = config_.guest.description.substr(
      0, config_.guest.description.find(';'));
  info.set_guest_kernel(std::string(absl::StripPrefix(kernel, "kernel ")));
  const int64_t first = first_record_ns_.load();
  if (first > 0) info.set_boot_to_first_record_s((first - start_ns_) / 1e9);
  if (data_.has_value()) {
    info.set_data_transport(data_->disk.empty() ? "9p" : "virtio-blk");
  }
  if (container_.has_value()) {
    info.set_guest_image_id(container_->image_id);
    std::ifstream phases(launch_.phases_file);
    std::string name;
    double at = 0;
    while (phases >> name >> at) {
      if (name == "engine_ready") info.set_guest_engine_ready_s(at);
      if (name == "image_loaded") info.set_guest_image_loaded_s(at);
    }
  }
  return info;
}

}  // namespace powersweep
