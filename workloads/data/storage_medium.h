// The storage medium behind a path: which block device (partition and
// whole disk) holds it, its file system, and whether the kernel calls the
// disk rotational (an HDD) or not (SSD, eMMC, SD card, NVMe).
//
// DescribeStorage(path, root): stat(path) gives the device number; the
// mount with that device and the longest mount point prefixing the path
// comes from ROOT/proc/self/mountinfo (file system type, mount point);
// ROOT/sys/dev/block/MAJ:MIN names the device, its parent directory the
// whole disk of a partition, and the disk's queue/rotational the
// kind. A file system without a block device (overlay, tmpfs, nfs) gives
// the mount's source as device and kind "unknown" -- never an error.
// `root` is "/" on a real machine; tests point it at a fake tree laid out
// like a board's (the path itself is always stat'ed for real, so tests
// pass the device number to DescribeBlockDevice instead).
//
// Errors: kNotFound naming the path when it does not exist. Stateless and
// thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_STORAGE_MEDIUM_H_
#define POWERSWEEP_WORKLOADS_DATA_STORAGE_MEDIUM_H_

#include <string>

#include "absl/status/statusor.h"
#include "powersweep/v1/records.pb.h"

namespace powersweep {

absl::StatusOr<::powersweep::v1::StorageMedium> DescribeStorage(
    const std::string& path, const std::string& root = "/");

// The device part alone: fills device, disk and kind of `medium` for the
// block device major:minor under ROOT/sys. Leaves them as they are (kind
// "unknown") when ROOT/sys/dev/block/MAJ:MIN does not exist.
void DescribeBlockDevice(unsigned major, unsigned minor,
                         const std::string& root,
                         ::powersweep::v1::StorageMedium* medium);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_STORAGE_MEDIUM_H_
