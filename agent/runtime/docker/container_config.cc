#include "agent/runtime/docker/container_config.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace powersweep {
namespace {

// "repo" -> "repo:latest"; references with a tag, a digest or an image id
// stay as they are. A ':' before the last '/' belongs to a registry port.
std::string NormalizeReference(const std::string& ref) {
  if (absl::StartsWith(ref, "sha256:") || absl::StrContains(ref, '@')) {
    return ref;
  }
  const size_t slash = ref.rfind('/');
  const size_t colon = ref.rfind(':');
  if (colon != std::string::npos &&
      (slash == std::string::npos || colon > slash)) {
    return ref;
  }
  return ref + ":latest";
}

bool IsImageId(const std::string& entry) {
  return absl::StartsWith(entry, "sha256:") && entry.size() == 7 + 64;
}

}  // namespace

std::string ContainerName(const std::string& prefix,
                          const ContainerRequest& r) {
  std::string device = r.device_id.empty() ? "agent" : r.device_id;
  for (char& c : device) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' &&
        c != '.' && c != '-') {
      c = '_';
    }
  }
  return absl::StrCat(prefix, "-", device, "-r", r.run_id, "-a", r.attempt,
                      "-t", r.tenant);
}

std::string WorkloadImageTag(const std::string& fingerprint) {
  return absl::StrCat(kWorkloadImageRepo, ":",
                      absl::StrReplaceAll(fingerprint, {{":", "-"}}));
}

bool AllowlistHasImageIds(const std::vector<std::string>& allowlist) {
  return std::any_of(allowlist.begin(), allowlist.end(), IsImageId);
}

absl::Status CheckImageAllowed(const std::string& image,
                               const std::string& image_id,
                               const std::vector<std::string>& allowlist) {
  const std::string wanted = NormalizeReference(image);
  for (const std::string& entry : allowlist) {
    if (IsImageId(entry)) {
      if (entry == image || (!image_id.empty() && entry == image_id)) {
        return absl::OkStatus();
      }
    } else if (NormalizeReference(entry) == wanted) {
      return absl::OkStatus();
    }
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "image \"", image, "\" is not in this agent's image allowlist [",
      absl::StrJoin(allowlist, ", "), "]"));
}

absl::StatusOr<std::vector<std::string>> BuildDockerRunArgs(
    const DockerRuntimeConfig& config, const ContainerRequest& request,
    const DockerRunInput& input, const RuntimeSpec& spec) {
  if (spec.argv.empty()) {
    return absl::InvalidArgumentError("argv: empty command line");
  }
  std::vector<std::string> a = {"run",       "--name",       input.name,
                                "--network", "none",         "--pull",
                                "never",     "--log-driver", "none"};
  if (config.use_init) a.push_back("--init");
  if (config.run_as_agent_user && input.uid >= 0) {
    a.insert(a.end(), {"--user", absl::StrCat(input.uid, ":", input.gid)});
  }
  if (!config.oci_runtime.empty()) {
    a.insert(a.end(), {"--runtime", config.oci_runtime});
  }
  a.insert(a.end(),
           {"--cgroup-parent",
            absl::StrCat("/", config.cgroup_parent, "/", input.name), "--label",
            "powersweep.managed=true", "--label",
            absl::StrCat("powersweep.device=", input.device_id), "--label",
            absl::StrCat("powersweep.image=", input.requested_image)});
  if (!spec.cpus.empty()) {
    for (int c : spec.cpus) {
      if (c < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("cpus: negative CPU number ", c));
      }
    }
    a.insert(a.end(), {"--cpuset-cpus", absl::StrJoin(spec.cpus, ",")});
  }
  for (const std::string& e : config.env) a.insert(a.end(), {"--env", e});
  for (const std::string& p : request.read_only_mounts) {
    if (p.empty() || p[0] != '/') {
      return absl::InvalidArgumentError(absl::StrCat(
          "read_only_mounts: \"", p, "\" is not an absolute path"));
    }
    if (absl::StrContains(p, ',') || absl::StrContains(p, '\n')) {
      return absl::InvalidArgumentError(
          absl::StrCat("read_only_mounts: \"", p,
                       "\" holds a comma or newline, which a bind mount "
                       "cannot be given"));
    }
    a.insert(a.end(), {"--mount", absl::StrCat("type=bind,source=", p,
                                               ",target=", p, ",readonly")});
  }
  a.push_back(input.image_ref);
  a.push_back(config.workload_path_in_image);
  bool records_fd_set = false;
  for (size_t i = 1; i < spec.argv.size(); ++i) {
    const std::string& arg = spec.argv[i];
    if ((arg == "--records-fd" || arg == "--records_fd") &&
        i + 1 < spec.argv.size()) {
      a.insert(a.end(), {arg, "1"});
      ++i;
      records_fd_set = true;
    } else if (absl::StartsWith(arg, "--records-fd=") ||
               absl::StartsWith(arg, "--records_fd=")) {
      a.push_back(arg.substr(0, arg.find('=')) + "=1");
      records_fd_set = true;
    } else {
      a.push_back(arg);
    }
  }
  if (!records_fd_set) a.insert(a.end(), {"--records-fd", "1"});
  return a;
}

}  // namespace powersweep
