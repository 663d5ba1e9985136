// The models powersweep runs on images (or image-shaped frames) and the
// input sizes each takes, shared by the workload binary
// (workloads/models/catalog.cc), the controller's sweep validation
// (controller/sweep/validate_model_inputs.cc) and the twin's cost models
// (agent/platform/twin/model_cost.cc), so an input_size that does not fit
// a model is rejected at submit with the same bounds the workload applies.
//
// Sizes are the side of a square input. The networks with five 2x
// downsamplings (VGG's pools, the strides of ResNet and MobileNetV3) reach
// 1x1 at 32x32; AlexNet's 11x11/4 stem and three 3x3/2 pools at 63x63;
// SqueezeNet 1.1's 3x3/2 stem and three ceil-mode 3x3/2 pools at 17x17;
// Inception-v3's main network at 75x75, and its auxiliary classifier
// (training only: 5x5/3 average pool and 5x5 conv on the 17x17 map of
// Mixed_6e) needs 299x299. lenet5 and vae take 28x28 grey images only, dqn
// 84x84 frames only (channels: the 4 stacked frames and the next frame of
// the frames data set).
#ifndef POWERSWEEP_COMMON_IMAGE_MODELS_H_
#define POWERSWEEP_COMMON_IMAGE_MODELS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace powersweep {

struct ImageModelInput {
  const char* name;
  int64_t channels;
  int64_t default_size;    // what input_size 0 means
  int64_t min_size;        // smallest input the downsampling allows
  int64_t min_train_size;  // the same in training (auxiliary heads)
  bool fixed_size;         // default_size is the only size it takes
};

// Sorted by name.
inline constexpr ImageModelInput kImageModels[] = {
    {"alexnet", 3, 224, 63, 63, false},
    {"dqn", 5, 84, 84, 84, true},
    {"inception_v3", 3, 299, 75, 299, false},
    {"lenet5", 1, 28, 28, 28, true},
    {"mobilenetv3", 3, 224, 32, 32, false},
    {"resnet18", 3, 32, 32, 32, false},
    {"resnet50", 3, 224, 32, 32, false},
    {"squeezenet1_1", 3, 224, 17, 17, false},
    {"vae", 1, 28, 28, 28, true},
    {"vgg11", 3, 32, 32, 32, false},
    {"vgg19", 3, 224, 32, 32, false},
};

// The row of `model`, or nullptr when it does not take images.
constexpr const ImageModelInput* FindImageModel(std::string_view model) {
  for (const ImageModelInput& m : kImageModels) {
    if (model == m.name) return &m;
  }
  return nullptr;
}

// Why `size` (0: the model's default) does not fit `m` in training
// (`train`) or inference, e.g. "40 is too small for alexnet (at least 63;
// 0 means the default of 224)"; empty when it fits. The caller prefixes the
// field ("--input-size: ", "input_size: ").
std::string ImageSizeProblem(const ImageModelInput& m, int64_t size,
                             bool train);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_IMAGE_MODELS_H_
