#include "common/image_models.h"

#include "absl/strings/str_cat.h"

namespace powersweep {

std::string ImageSizeProblem(const ImageModelInput& m, int64_t size,
                             bool train) {
  const int64_t s = size == 0 ? m.default_size : size;
  if (m.fixed_size && s != m.default_size) {
    return absl::StrCat(m.name, " takes ", m.default_size, "x",
                        m.default_size, " images only, got ", size);
  }
  if (s < m.min_size) {
    return absl::StrCat(size, " is too small for ", m.name, " (at least ",
                        m.min_size, "; 0 means the default of ",
                        m.default_size, ")");
  }
  if (train && s < m.min_train_size) {
    return absl::StrCat(s, " is too small to train ", m.name,
                        " (its auxiliary classifier needs at least ",
                        m.min_train_size, "; inference takes ", m.min_size,
                        " and up)");
  }
  return "";
}

}  // namespace powersweep
