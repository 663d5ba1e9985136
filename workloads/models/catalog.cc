#include "workloads/models/catalog.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/model_names.h"

namespace powersweep {
namespace {

struct Spec {
  const char* name;
  int64_t channels;
  int64_t default_size;
  int64_t min_size;  // smallest input the network's downsampling allows
  int64_t min_train_size;  // the same in training (auxiliary heads)
  bool fixed_size;   // the default size is the only one it takes
  int64_t default_classes;
};

// Sorted by name. The networks with five 2x downsamplings (VGG's pools,
// the strides of ResNet and MobileNetV3) reach 1x1 at 32x32; AlexNet's
// 11x11/4 stem and three 3x3/2 pools at 63x63; SqueezeNet 1.1's 3x3/2 stem
// and three ceil-mode 3x3/2 pools at 17x17; Inception-v3's main network at
// 75x75, and its auxiliary classifier (training only: 5x5/3 average pool
// and 5x5 conv on the 17x17 map of Mixed_6e) needs 299x299.
constexpr Spec kSpecs[] = {
    {"alexnet", 3, 224, 63, 63, false, 1000},
    {"inception_v3", 3, 299, 75, 299, false, 1000},
    {"lenet5", 1, 28, 28, 28, true, 10},
    {"mobilenetv3", 3, 224, 32, 32, false, 2000},
    {"resnet18", 3, 32, 32, 32, false, 10},
    {"resnet50", 3, 224, 32, 32, false, 1000},
    {"squeezenet1_1", 3, 224, 17, 17, false, 1000},
    {"vgg11", 3, 32, 32, 32, false, 10},
    {"vgg19", 3, 224, 32, 32, false, 1000},
};
static_assert(NamesAreModelNames(kSpecs),
              "a spec for every name of common/model_names.h");

const Spec* FindSpec(absl::string_view name) {
  const std::string canonical = CanonicalModelName(name);
  for (const Spec& s : kSpecs) {
    if (canonical == s.name) return &s;
  }
  return nullptr;
}

}  // namespace

int64_t ImageFolderInputSize(absl::string_view name) {
  const Spec* spec = FindSpec(name);
  return spec != nullptr && spec->default_size > 224 ? spec->default_size
                                                     : 224;
}

std::vector<std::string> KnownModels() {
  return std::vector<std::string>(kModelNames.begin(), kModelNames.end());
}

std::string CanonicalModelName(absl::string_view name) {
  if (name == "mobilenet_v3_large") return "mobilenetv3";
  for (const Spec& s : kSpecs) {
    if (name == s.name) return s.name;
  }
  return "";
}

absl::StatusOr<ResolvedModel> ResolveModelOptions(absl::string_view name,
                                                  const ModelOptions& options) {
  const Spec* spec = FindSpec(name);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--model: unknown model '", name, "' (known: ",
                     absl::StrJoin(KnownModels(), ", "), ")"));
  }
  ResolvedModel r;
  r.name = spec->name;
  r.num_classes =
      options.num_classes == 0 ? spec->default_classes : options.num_classes;
  if (r.num_classes < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--classes: ", options.num_classes, " is too few for ", r.name,
        " (at least 2; 0 means the default of ", spec->default_classes, ")"));
  }
  const int64_t size =
      options.input_size == 0 ? spec->default_size : options.input_size;
  if (spec->fixed_size && size != spec->default_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input-size: ", r.name, " takes ", spec->default_size, "x",
        spec->default_size, " images only, got ", options.input_size));
  }
  if (size < spec->min_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input-size: ", options.input_size, " is too small for ", r.name,
        " (at least ", spec->min_size, "; 0 means the default of ",
        spec->default_size, ")"));
  }
  if (options.train && size < spec->min_train_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input-size: ", size, " is too small to train ", r.name,
        " (its auxiliary classifier needs at least ", spec->min_train_size,
        "; inference takes ", spec->min_size, " and up)"));
  }
  r.input_shape = {spec->channels, size, size};
  return r;
}

}  // namespace powersweep
