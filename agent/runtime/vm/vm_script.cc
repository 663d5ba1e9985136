#include "agent/runtime/vm/vm_script.h"

#include <cctype>
#include <sstream>

#include "absl/strings/str_join.h"

extern char** environ;

namespace powersweep {
namespace {

std::string Quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

bool IsShellName(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string Words(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const std::string& a : argv) words.push_back(Quote(a));
  return absl::StrJoin(words, " ");
}

// The environment, TMPDIR and the working directory.
void Prologue(const std::string& what, const std::string& cwd,
              const std::map<std::string, std::string>& env,
              const std::string& data_mount, std::ostringstream& s) {
  s << "# powersweep " << what
    << " run: the agent's environment and argv (agent/runtime/vm/vm_script.h)"
       "\n";
  for (const auto& [name, value] : env) {
    if (!IsShellName(name)) continue;
    s << "export " << name << "=" << Quote(value) << "\n";
  }
  s << "export TMPDIR=/run/powersweep-tmp\n"
    << "mkdir -p \"$TMPDIR\"\n";
  if (!data_mount.empty()) {
    s << "mount -t ext4 -o ro /dev/vda " << Quote(data_mount)
      << " || { echo \"powersweep-vm: mounting the data disk over \""
      << Quote(data_mount) << "\" failed\" >&2; exit 125; }\n";
  }
  if (!cwd.empty()) s << "cd " << Quote(cwd) << " 2>/dev/null || cd /\n";
}

}  // namespace

std::string VmRunScript(const std::vector<std::string>& argv,
                        const std::string& cwd,
                        const std::map<std::string, std::string>& env,
                        const std::string& data_mount) {
  std::ostringstream s;
  Prologue("vm", cwd, env, data_mount, s);
  s << "exec " << Words(argv) << "\n";
  return s.str();
}

std::string VmContainerScript(const VmContainer& container,
                              const std::string& cwd,
                              const std::map<std::string, std::string>& env,
                              const std::string& data_mount) {
  std::ostringstream s;
  Prologue("container_in_vm", cwd, env, data_mount, s);
  const std::string archive = Quote(container.image_archive);
  s << R"sh(export PATH="$PATH:/usr/sbin:/usr/bin:/sbin:/bin"
phase() { echo "$1 $(cut -d' ' -f1 /proc/uptime)" >&4; } 2>/dev/null
fail() { echo "powersweep-vm: $*" >&2; exit 125; }
D=/run/powersweep-docker
mkdir -p "$D" && mount -t tmpfs -o size=80%,mode=0700 powersweep-docker "$D" ||
  fail "mounting a tmpfs for the guest's Docker engine failed"
grep -q ' /sys/fs/cgroup ' /proc/mounts ||
  mount -t cgroup2 cgroup2 /sys/fs/cgroup || fail "mounting cgroup2 failed"
echo '{}' >"$D/daemon.json"
dockerd --config-file "$D/daemon.json" --data-root "$D/data" \
  --exec-root "$D/exec" --pidfile "$D/dockerd.pid" -H "unix://$D/docker.sock" \
  --bridge=none --iptables=false --ip6tables=false --ip-masq=false \
  --storage-driver=overlay2 >"$D/dockerd.log" 2>&1 &
engine=$!
export DOCKER_HOST="unix://$D/docker.sock"
i=0
until docker version >/dev/null 2>&1; do
  kill -0 "$engine" 2>/dev/null || { tail -n 5 "$D/dockerd.log" >&2;
    fail "the guest's Docker engine (the host's dockerd) exited"; }
  i=$((i + 1))
  [ "$i" -lt 1200 ] || { tail -n 5 "$D/dockerd.log" >&2;
    fail "the guest's Docker engine did not answer within 600 s"; }
  sleep 0.5
done
phase engine_ready
)sh";
  s << "docker load -q -i " << archive << " >&2 ||\n"
    << "  fail \"docker load -i \"" << archive
    << "\" failed in the guest (guest memory too small for the image?)\"\n"
    << "phase image_loaded\n"
    << "exec docker " << Words(container.docker_run_args) << " >&3\n";
  return s.str();
}

std::map<std::string, std::string> AgentEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

}  // namespace powersweep
