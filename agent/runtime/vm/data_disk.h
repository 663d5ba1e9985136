// VmDataDisks: read-only ext4 images of the data sets vm and
// container_in_vm runs read, so a guest reads its data set over
// virtio-blk, which docs/vm.md measured closer to native reads than
// virtio-9p (the host's / that the guest mounts). Each image is made once
// with `mkfs.ext4 -d` (e2fsprogs; no root needed, nothing mounted on the
// host) into a directory of the agent's (--work_dir/vm-data) and remade
// when the data set changes: its files' count, total size or newest mtime.
// The guest mounts the image over the data set's own path, so the
// workload's argv is unchanged.
//
// Thread-safe: runs starting together make an image once.
#ifndef POWERSWEEP_AGENT_RUNTIME_VM_DATA_DISK_H_
#define POWERSWEEP_AGENT_RUNTIME_VM_DATA_DISK_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace powersweep {

// What identifies a data set's content for its image: "files N bytes B
// newest-mtime-ns T" over the regular files under `dir` (recursively,
// symlinks not followed). NotFound when `dir` is not a directory.
absl::StatusOr<std::string> DataSetSignature(const std::string& dir);

class VmDataDisks {
 public:
  explicit VmDataDisks(std::string dir,
                       std::string mkfs = "/usr/sbin/mkfs.ext4");

  // The image of `dataset_dir`: `dir/<last path part>-<hash of the
  // path>.ext4`, (re)made when missing or when its signature file
  // (`.sig` beside it) differs from the data set's. FailedPrecondition
  // naming the data set or the image (and mkfs's own message) otherwise.
  absl::StatusOr<std::string> DiskOf(const std::string& dataset_dir);

 private:
  const std::string dir_;
  const std::string mkfs_;
  absl::Mutex mu_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_VM_DATA_DISK_H_
