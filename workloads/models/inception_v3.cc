#include "workloads/models/inception_v3.h"

namespace powersweep {
namespace {

namespace nn = torch::nn;

struct Kernel {
  int64_t h, w;
};

// torchvision's BasicConv2d: conv (no bias), BatchNorm2d(eps 0.001), ReLU;
// kernels may be 1x7, 7x1, 1x3, 3x1.
class BasicConv2dImpl : public nn::Module {
 public:
  BasicConv2dImpl(int64_t in, int64_t out, Kernel k, int64_t stride = 1,
                  Kernel pad = {0, 0})
      : conv_(register_module(
            "conv", MacConv2d(nn::Conv2dOptions(in, out, {k.h, k.w})
                                  .stride(stride)
                                  .padding({pad.h, pad.w})
                                  .bias(false)))),
        bn_(register_module("bn",
                            nn::BatchNorm2d(nn::BatchNorm2dOptions(out).eps(
                                0.001)))) {}
  BasicConv2dImpl(int64_t in, int64_t out, int64_t k, int64_t stride = 1,
                  int64_t pad = 0)
      : BasicConv2dImpl(in, out, Kernel{k, k}, stride, Kernel{pad, pad}) {}

  torch::Tensor forward(const torch::Tensor& x) {
    return torch::relu(bn_(conv_(x)));
  }

 private:
  MacConv2d conv_;
  nn::BatchNorm2d bn_;
};
TORCH_MODULE(BasicConv2d);

// The branches' pooling: average 3x3, stride 1, pad 1 (padding counted, as
// F.avg_pool2d's default), or max 3x3 stride 2.
torch::Tensor AvgPool3(const torch::Tensor& x) {
  return torch::avg_pool2d(x, 3, 1, 1);
}
torch::Tensor MaxPool3s2(const torch::Tensor& x) {
  return torch::max_pool2d(x, 3, 2);
}

// A block of parallel branches concatenated on the channels; each subclass
// registers its BasicConv2d layers under torchvision's names.
class InceptionBlock : public nn::Module {
 protected:
  BasicConv2d Conv(const std::string& name, BasicConv2d conv) {
    return register_module(name, conv);
  }
};

// 35x35: 1x1 | 1x1 -> 5x5 | 1x1 -> 3x3 -> 3x3 | avg pool -> 1x1.
class InceptionAImpl : public InceptionBlock {
 public:
  InceptionAImpl(int64_t in, int64_t pool_features)
      : b1x1_(Conv("branch1x1", BasicConv2d(in, 64, 1))),
        b5x5_1_(Conv("branch5x5_1", BasicConv2d(in, 48, 1))),
        b5x5_2_(Conv("branch5x5_2", BasicConv2d(48, 64, 5, 1, 2))),
        b3x3dbl_1_(Conv("branch3x3dbl_1", BasicConv2d(in, 64, 1))),
        b3x3dbl_2_(Conv("branch3x3dbl_2", BasicConv2d(64, 96, 3, 1, 1))),
        b3x3dbl_3_(Conv("branch3x3dbl_3", BasicConv2d(96, 96, 3, 1, 1))),
        pool_(Conv("branch_pool", BasicConv2d(in, pool_features, 1))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    return torch::cat({b1x1_(x), b5x5_2_(b5x5_1_(x)),
                       b3x3dbl_3_(b3x3dbl_2_(b3x3dbl_1_(x))),
                       pool_(AvgPool3(x))},
                      1);
  }

 private:
  BasicConv2d b1x1_, b5x5_1_, b5x5_2_, b3x3dbl_1_, b3x3dbl_2_, b3x3dbl_3_,
      pool_;
};
TORCH_MODULE(InceptionA);

// 35x35 -> 17x17: 3x3/2 | 1x1 -> 3x3 -> 3x3/2 | max pool 3x3/2.
class InceptionBImpl : public InceptionBlock {
 public:
  explicit InceptionBImpl(int64_t in)
      : b3x3_(Conv("branch3x3", BasicConv2d(in, 384, 3, 2))),
        b3x3dbl_1_(Conv("branch3x3dbl_1", BasicConv2d(in, 64, 1))),
        b3x3dbl_2_(Conv("branch3x3dbl_2", BasicConv2d(64, 96, 3, 1, 1))),
        b3x3dbl_3_(Conv("branch3x3dbl_3", BasicConv2d(96, 96, 3, 2))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    return torch::cat(
        {b3x3_(x), b3x3dbl_3_(b3x3dbl_2_(b3x3dbl_1_(x))), MaxPool3s2(x)}, 1);
  }

 private:
  BasicConv2d b3x3_, b3x3dbl_1_, b3x3dbl_2_, b3x3dbl_3_;
};
TORCH_MODULE(InceptionB);

constexpr Kernel k1x7{1, 7}, k7x1{7, 1}, pad1x7{0, 3}, pad7x1{3, 0};

// 17x17, factorised 7x7: 1x1 | 1x1 -> 1x7 -> 7x1 |
// 1x1 -> 7x1 -> 1x7 -> 7x1 -> 1x7 | avg pool -> 1x1.
class InceptionCImpl : public InceptionBlock {
 public:
  InceptionCImpl(int64_t in, int64_t c7)
      : b1x1_(Conv("branch1x1", BasicConv2d(in, 192, 1))),
        b7_1_(Conv("branch7x7_1", BasicConv2d(in, c7, 1))),
        b7_2_(Conv("branch7x7_2", BasicConv2d(c7, c7, k1x7, 1, pad1x7))),
        b7_3_(Conv("branch7x7_3", BasicConv2d(c7, 192, k7x1, 1, pad7x1))),
        b7dbl_1_(Conv("branch7x7dbl_1", BasicConv2d(in, c7, 1))),
        b7dbl_2_(Conv("branch7x7dbl_2", BasicConv2d(c7, c7, k7x1, 1, pad7x1))),
        b7dbl_3_(Conv("branch7x7dbl_3", BasicConv2d(c7, c7, k1x7, 1, pad1x7))),
        b7dbl_4_(Conv("branch7x7dbl_4", BasicConv2d(c7, c7, k7x1, 1, pad7x1))),
        b7dbl_5_(
            Conv("branch7x7dbl_5", BasicConv2d(c7, 192, k1x7, 1, pad1x7))),
        pool_(Conv("branch_pool", BasicConv2d(in, 192, 1))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor dbl = b7dbl_3_(b7dbl_2_(b7dbl_1_(x)));
    dbl = b7dbl_5_(b7dbl_4_(dbl));
    return torch::cat({b1x1_(x), b7_3_(b7_2_(b7_1_(x))), dbl,
                       pool_(AvgPool3(x))},
                      1);
  }

 private:
  BasicConv2d b1x1_, b7_1_, b7_2_, b7_3_, b7dbl_1_, b7dbl_2_, b7dbl_3_,
      b7dbl_4_, b7dbl_5_, pool_;
};
TORCH_MODULE(InceptionC);

// 17x17 -> 8x8: 1x1 -> 3x3/2 | 1x1 -> 1x7 -> 7x1 -> 3x3/2 | max pool 3x3/2.
class InceptionDImpl : public InceptionBlock {
 public:
  explicit InceptionDImpl(int64_t in)
      : b3_1_(Conv("branch3x3_1", BasicConv2d(in, 192, 1))),
        b3_2_(Conv("branch3x3_2", BasicConv2d(192, 320, 3, 2))),
        b7_1_(Conv("branch7x7x3_1", BasicConv2d(in, 192, 1))),
        b7_2_(Conv("branch7x7x3_2", BasicConv2d(192, 192, k1x7, 1, pad1x7))),
        b7_3_(Conv("branch7x7x3_3", BasicConv2d(192, 192, k7x1, 1, pad7x1))),
        b7_4_(Conv("branch7x7x3_4", BasicConv2d(192, 192, 3, 2))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    return torch::cat({b3_2_(b3_1_(x)), b7_4_(b7_3_(b7_2_(b7_1_(x)))),
                       MaxPool3s2(x)},
                      1);
  }

 private:
  BasicConv2d b3_1_, b3_2_, b7_1_, b7_2_, b7_3_, b7_4_;
};
TORCH_MODULE(InceptionD);

constexpr Kernel k1x3{1, 3}, k3x1{3, 1}, pad1x3{0, 1}, pad3x1{1, 0};

// 8x8, expanded: 1x1 | 1x1 -> [1x3, 3x1] | 1x1 -> 3x3 -> [1x3, 3x1] |
// avg pool -> 1x1.
class InceptionEImpl : public InceptionBlock {
 public:
  explicit InceptionEImpl(int64_t in)
      : b1x1_(Conv("branch1x1", BasicConv2d(in, 320, 1))),
        b3_1_(Conv("branch3x3_1", BasicConv2d(in, 384, 1))),
        b3_2a_(Conv("branch3x3_2a", BasicConv2d(384, 384, k1x3, 1, pad1x3))),
        b3_2b_(Conv("branch3x3_2b", BasicConv2d(384, 384, k3x1, 1, pad3x1))),
        b3dbl_1_(Conv("branch3x3dbl_1", BasicConv2d(in, 448, 1))),
        b3dbl_2_(Conv("branch3x3dbl_2", BasicConv2d(448, 384, 3, 1, 1))),
        b3dbl_3a_(
            Conv("branch3x3dbl_3a", BasicConv2d(384, 384, k1x3, 1, pad1x3))),
        b3dbl_3b_(
            Conv("branch3x3dbl_3b", BasicConv2d(384, 384, k3x1, 1, pad3x1))),
        pool_(Conv("branch_pool", BasicConv2d(in, 192, 1))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    const torch::Tensor b3 = b3_1_(x);
    const torch::Tensor dbl = b3dbl_2_(b3dbl_1_(x));
    return torch::cat({b1x1_(x), b3_2a_(b3), b3_2b_(b3), b3dbl_3a_(dbl),
                       b3dbl_3b_(dbl), pool_(AvgPool3(x))},
                      1);
  }

 private:
  BasicConv2d b1x1_, b3_1_, b3_2a_, b3_2b_, b3dbl_1_, b3dbl_2_, b3dbl_3a_,
      b3dbl_3b_, pool_;
};
TORCH_MODULE(InceptionE);

// The auxiliary classifier on Mixed_6e's 17x17 map: average pool 5x5/3,
// conv0 1x1 -> 128, conv1 5x5 -> 768, adaptive average pool 1x1, fc.
class InceptionAuxImpl : public nn::Module {
 public:
  InceptionAuxImpl(int64_t in, int64_t classes)
      : conv0_(register_module("conv0", BasicConv2d(in, 128, 1))),
        conv1_(register_module("conv1", BasicConv2d(128, 768, 5))),
        fc_(register_module("fc", MacLinear(768, classes))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = conv1_(conv0_(torch::avg_pool2d(x, 5, 3)));
    return fc_(torch::adaptive_avg_pool2d(y, {1, 1}).flatten(1));
  }

  // torchvision's per-layer init deviations (conv1.stddev, fc.stddev).
  const torch::nn::Module* conv1() const { return conv1_.get(); }
  const torch::nn::Module* fc() const { return fc_.get(); }

 private:
  BasicConv2d conv0_, conv1_;
  MacLinear fc_;
};
TORCH_MODULE(InceptionAux);

void InitInceptionWeights(nn::Module& model, const InceptionAuxImpl& aux) {
  namespace init = torch::nn::init;
  torch::NoGradGuard no_grad;
  // The std of each layer: 0.1, except AuxLogits' conv1 (0.01) and fc
  // (0.001).
  std::vector<std::pair<const nn::Module*, double>> special;
  for (const auto& m : aux.conv1()->modules(false)) {
    special.emplace_back(m.get(), 0.01);
  }
  special.emplace_back(aux.fc(), 0.001);
  auto stddev = [&](const nn::Module* m) {
    for (const auto& [module, s] : special) {
      if (module == m) return s;
    }
    return 0.1;
  };
  for (const std::shared_ptr<nn::Module>& m : model.modules(false)) {
    if (auto* conv = m->as<nn::Conv2d>()) {
      init::normal_(conv->weight, 0.0, stddev(m.get()));
    } else if (auto* fc = m->as<nn::Linear>()) {
      init::normal_(fc->weight, 0.0, stddev(m.get()));
    } else if (auto* bn = m->as<nn::BatchNorm2d>()) {
      init::ones_(bn->weight);
      init::zeros_(bn->bias);
    }
  }
}

}  // namespace

InceptionV3::InceptionV3(const ResolvedModel& shape) : Model(shape) {
  const int64_t c = shape.input_shape[0];
  auto max_pool = [] {
    return nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2));
  };
  Add(&to_aux_, "Conv2d_1a_3x3", BasicConv2d(c, 32, 3, 2));
  Add(&to_aux_, "Conv2d_2a_3x3", BasicConv2d(32, 32, 3));
  Add(&to_aux_, "Conv2d_2b_3x3", BasicConv2d(32, 64, 3, 1, 1));
  to_aux_.emplace_back(max_pool());  // maxpool1: no parameters
  Add(&to_aux_, "Conv2d_3b_1x1", BasicConv2d(64, 80, 1));
  Add(&to_aux_, "Conv2d_4a_3x3", BasicConv2d(80, 192, 3));
  to_aux_.emplace_back(max_pool());  // maxpool2
  Add(&to_aux_, "Mixed_5b", InceptionA(192, 32));
  Add(&to_aux_, "Mixed_5c", InceptionA(256, 64));
  Add(&to_aux_, "Mixed_5d", InceptionA(288, 64));
  Add(&to_aux_, "Mixed_6a", InceptionB(288));
  Add(&to_aux_, "Mixed_6b", InceptionC(768, 128));
  Add(&to_aux_, "Mixed_6c", InceptionC(768, 160));
  Add(&to_aux_, "Mixed_6d", InceptionC(768, 160));
  Add(&to_aux_, "Mixed_6e", InceptionC(768, 192));
  InceptionAux aux = register_module("AuxLogits",
                                     InceptionAux(768, shape.num_classes));
  aux_ = nn::AnyModule(aux);
  Add(&after_aux_, "Mixed_7a", InceptionD(768));
  Add(&after_aux_, "Mixed_7b", InceptionE(1280));
  Add(&after_aux_, "Mixed_7c", InceptionE(2048));
  fc_ = register_module("fc", MacLinear(2048, shape.num_classes));
  InitInceptionWeights(*this, *aux);
}

std::pair<torch::Tensor, torch::Tensor> InceptionV3::ForwardWithAux(
    torch::Tensor x) {
  for (nn::AnyModule& m : to_aux_) x = m.forward<torch::Tensor>(x);
  torch::Tensor aux;
  if (is_training()) aux = aux_.forward<torch::Tensor>(x);
  for (nn::AnyModule& m : after_aux_) x = m.forward<torch::Tensor>(x);
  x = torch::adaptive_avg_pool2d(x, {1, 1});
  x = torch::dropout(x, 0.5, is_training()).flatten(1);
  return {fc_(x), aux};
}

torch::Tensor InceptionV3::forward(torch::Tensor x) {
  return ForwardWithAux(std::move(x)).first;
}

torch::Tensor InceptionV3::Loss(const torch::Tensor& input,
                                const torch::Tensor& labels) {
  namespace F = torch::nn::functional;
  auto [main, aux] = ForwardWithAux(input);
  torch::Tensor loss = F::cross_entropy(main, labels);
  if (aux.defined()) loss = loss + kAuxLossWeight * F::cross_entropy(aux, labels);
  return loss;
}

}  // namespace powersweep
