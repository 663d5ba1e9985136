#include "agent/runtime/vm/data_disk.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/runtime/docker/subprocess.h"
#include "common/status_macros.h"

namespace powersweep {
namespace fs = std::filesystem;

absl::StatusOr<std::string> DataSetSignature(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(
        absl::StrCat("data set ", dir, " is not a directory"));
  }
  int64_t files = 0;
  uintmax_t bytes = 0;
  int64_t newest = 0;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    ++files;
    bytes += it->file_size(ec);
    const auto t = it->last_write_time(ec).time_since_epoch();
    newest = std::max<int64_t>(
        newest, std::chrono::duration_cast<std::chrono::nanoseconds>(t).count());
  }
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read data set ", dir, ": ", ec.message()));
  }
  return absl::StrCat("files ", files, " bytes ", bytes, " newest-mtime-ns ",
                      newest);
}

VmDataDisks::VmDataDisks(std::string dir, std::string mkfs)
    : dir_(std::move(dir)), mkfs_(std::move(mkfs)) {}

absl::StatusOr<std::string> VmDataDisks::DiskOf(
    const std::string& dataset_dir) {
  const std::string canonical =
      fs::weakly_canonical(dataset_dir).lexically_normal().string();
  PS_ASSIGN_OR_RETURN(const std::string signature,
                      DataSetSignature(canonical));
  std::string base = fs::path(canonical).filename().string();
  if (base.empty()) base = "data";
  std::ostringstream hash;
  hash << std::hex << std::hash<std::string>{}(canonical);
  const std::string disk = absl::StrCat(dir_, "/", base, "-", hash.str(), ".ext4");
  const std::string sig_path = disk + ".sig";
  absl::MutexLock lock(&mu_);
  std::error_code ec;
  {
    std::ifstream in(sig_path);
    std::string stored;
    std::getline(in, stored);
    if (stored == signature && fs::is_regular_file(disk, ec)) return disk;
  }
  fs::create_directories(dir_, ec);
  if (ec) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create ", dir_, " for the VMs' data disks: ", ec.message()));
  }
  // The files, a tenth more and 4 KiB per file for ext4's own blocks and
  // inodes, at least 16 MiB; an inode per file (-N).
  uintmax_t bytes = 0;
  int64_t files = 0;
  for (fs::recursive_directory_iterator it(canonical, ec), end;
       !ec && it != end; it.increment(ec)) {
    ++files;
    if (it->is_regular_file(ec)) bytes += it->file_size(ec);
  }
  const uintmax_t size_kib =
      std::max<uintmax_t>(16 << 10, bytes / 1024 * 11 / 10 + files * 4 + 4096);
  const std::string tmp = absl::StrCat(disk, ".", getpid(), ".tmp");
  fs::remove(sig_path, ec);
  PS_ASSIGN_OR_RETURN(
      CommandResult made,
      RunCommand({mkfs_, "-q", "-F", "-t", "ext4", "-L", "powersweep-data",
                  // An inode for every file, however small the files.
                  "-N", absl::StrCat(files + 1024), "-d", canonical, tmp,
                  absl::StrCat(size_kib, "k")},
                 1800));
  if (!made.ok()) {
    fs::remove(tmp, ec);
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot make the VM data disk of ", canonical, " (", mkfs_,
        "; apt-get install e2fsprogs): ", made.Summary()));
  }
  fs::rename(tmp, disk, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", disk, ": ", ec.message()));
  }
  std::ofstream(sig_path, std::ios::trunc) << signature << "\n";
  return disk;
}

}  // namespace powersweep
