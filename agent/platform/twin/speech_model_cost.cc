// deepspeech2 costed per sample, as workloads/models/deepspeech2.h builds
// it (simulated, like every twin figure). ModelInput is {1, frames, 29}:
// channels 1, size = the spectrogram frames of the window, classes the
// CTC alphabet; a sample is (frames + 1) x 80 floats (speech_format.h).
//
// MACs follow `powersweep-workload describe`: the two convolutions, the GRU
// gates' matrix products (3 x hidden x (input + hidden) per output frame,
// direction and layer) and the output layer. Activations: every op's
// output values per sample. Forward kernels, as LibTorch's eager mode
// launches them on a GPU (estimates): convolution, batch norm and hardtanh
// per convolution block; the permute copy; per GRU layer and direction one
// input-projection GEMM and, per output frame, a recurrent GEMM and a fused
// gate kernel (cuDNN's GRU; these small per-step launches are why GRUs
// suffer most from launch overhead, the DeepBench finding); the output
// Linear. Training adds the CTC loss (log-softmax, loss, backward: 4
// kernels) and Adam's per-tensor updates; inference adds the log-softmax,
// the CTC loss and the greedy decode's argmax and copy to the host.
#include "agent/platform/twin/model_architectures.h"
#include "agent/platform/twin/model_walker.h"

namespace powersweep {
namespace {

constexpr double kBands = 80;
constexpr double kChannels = 32;
constexpr double kHidden = 256;
constexpr int kLayers = 3;
// Adam's kernels per parameter tensor beyond SGD with momentum's two
// (fathom_cost.cc's estimate).
constexpr int kAdamExtraKernels = 8 - 2;

}  // namespace

ModelCost DeepSpeech2Cost(const ModelInput& input) {
  ModelWalker m("deepspeech2", input);
  const double frames = input.size;
  const double t = static_cast<double>((input.size + 1) / 2);  // conv1 stride
  // Mel bands after conv1 (kernel 41, padding 20, stride 2) and conv2
  // (kernel 21, padding 10, stride 2), in integer arithmetic as PyTorch's.
  const int bands = static_cast<int>(kBands);
  const double f1 = (bands + 2 * 20 - 41) / 2 + 1;                    // 40
  const double f2 = (static_cast<int>(f1) + 2 * 10 - 21) / 2 + 1;     // 20
  // conv1 11x41 stride 2x2, batch norm, hardtanh.
  m.Custom(kChannels * t * f1 * 11 * 41, kChannels * 11 * 41 + kChannels, 2,
           kChannels * t * f1, 1);
  m.Custom(0, 2 * kChannels, 2, kChannels * t * f1, 1);
  m.Custom(0, 0, 0, kChannels * t * f1, 1);
  // conv2 11x21 stride 1x2, batch norm, hardtanh.
  m.Custom(kChannels * t * f2 * kChannels * 11 * 21,
           kChannels * kChannels * 11 * 21 + kChannels, 2, kChannels * t * f2,
           1);
  m.Custom(0, 2 * kChannels, 2, kChannels * t * f2, 1);
  m.Custom(0, 0, 0, kChannels * t * f2, 1);
  m.Custom(0, 0, 0, kChannels * t * f2, 1);  // permute to (N, T', C * F')
  double in = kChannels * f2;
  for (int layer = 0; layer < kLayers; ++layer) {
    for (int direction = 0; direction < 2; ++direction) {
      m.Custom(t * 3 * kHidden * (in + kHidden),
               3 * kHidden * (in + kHidden) + 6 * kHidden, 4,
               t * 3 * kHidden + t * kHidden,
               1 + 2 * static_cast<int>(t));
    }
    m.Custom(0, 0, 0, t * 2 * kHidden, 1);  // the directions concatenated
    in = 2 * kHidden;
  }
  m.Custom(t * 2 * kHidden * input.classes,
           2 * kHidden * input.classes + input.classes, 2, t * input.classes,
           1);
  ModelCost c = m.Finish();
  c.input_values = (frames + 1) * kBands;
  c.train_kernels += 4 + kAdamExtraKernels * c.param_tensors;
  c.infer_kernels += 4;
  return c;
}

}  // namespace powersweep
