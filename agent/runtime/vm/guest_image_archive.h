// GuestImageArchives: the workload images container_in_vm runs load into
// their guest's Docker engine, saved once from the host's engine
// (`docker save`) into a directory of the agent's (--work_dir/vm-images),
// one tar per image id, reused by every later run of that image. Saving an
// image removes the archives of other images (a new build's image replaces
// the last one, as build-workload-image.sh --prune-others does), so the
// directory holds one image's archive, about its size (~500 MB for the
// LibTorch workload).
//
// Thread-safe: runs starting together save an image once.
#ifndef POWERSWEEP_AGENT_RUNTIME_VM_GUEST_IMAGE_ARCHIVE_H_
#define POWERSWEEP_AGENT_RUNTIME_VM_GUEST_IMAGE_ARCHIVE_H_

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "agent/runtime/docker/container_engine.h"

namespace powersweep {

class GuestImageArchives {
 public:
  // `engine` outlives this object.
  GuestImageArchives(ContainerEngine* engine, std::string dir);

  // The archive of `image_id` ("sha256:<hex>"): `dir/<hex>.tar`, written
  // (to a temporary name, then renamed) when it is not there yet.
  // InvalidArgument for an id that is not "sha256:<hex>"; the engine's
  // error (NotFound, Unavailable) or FailedPrecondition when the directory
  // cannot be written, naming it.
  absl::StatusOr<std::string> ArchiveOf(const std::string& image_id);

  const std::string& dir() const { return dir_; }

 private:
  ContainerEngine* const engine_;
  const std::string dir_;
  absl::Mutex mu_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_VM_GUEST_IMAGE_ARCHIVE_H_
