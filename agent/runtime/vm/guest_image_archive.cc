#include "agent/runtime/vm/guest_image_archive.h"

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

bool IsHex(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

GuestImageArchives::GuestImageArchives(ContainerEngine* engine,
                                       std::string dir)
    : engine_(engine), dir_(std::move(dir)) {}

absl::StatusOr<std::string> GuestImageArchives::ArchiveOf(
    const std::string& image_id) {
  constexpr absl::string_view kPrefix = "sha256:";
  if (!absl::StartsWith(image_id, kPrefix) ||
      !IsHex(absl::string_view(image_id).substr(kPrefix.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "image id \"", image_id, "\" is not sha256:<hex>"));
  }
  const std::string hex = image_id.substr(kPrefix.size());
  const std::string path = absl::StrCat(dir_, "/", hex, ".tar");
  absl::MutexLock lock(&mu_);
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return path;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create ", dir_, " for the guest's image archives: ",
        ec.message()));
  }
  // Archives of other images go first: the disk holds one image.
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".tar" || ext == ".tmp") {
      std::filesystem::remove(entry.path(), ec);
    }
  }
  const std::string tmp = absl::StrCat(dir_, "/", hex, ".", getpid(), ".tmp");
  absl::Status saved = engine_->SaveImage(image_id, tmp);
  if (!saved.ok()) {
    std::filesystem::remove(tmp, ec);
    return saved;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path, ": ", ec.message()));
  }
  return path;
}

}  // namespace powersweep
