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
  bool fixed_size;   // the default size is the only one it takes
  int64_t default_classes;
};

// Sorted by name. The networks with five 2x downsamplings (VGG's pools,
// the strides of ResNet and MobileNetV3) reach 1x1 at 32x32.
constexpr Spec kSpecs[] = {
    {"lenet5", 1, 28, 28, true, 10},
    {"mobilenetv3", 3, 224, 32, false, 2000},
    {"resnet18", 3, 32, 32, false, 10},
    {"resnet50", 3, 224, 32, false, 1000},
    {"vgg11", 3, 32, 32, false, 10},
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
  r.input_shape = {spec->channels, size, size};
  return r;
}

}  // namespace powersweep
