#include "workloads/kernels/kernel_iteration.h"

#include <utility>
#include <vector>

namespace powersweep {
namespace {

class DeviceSync {
 public:
  explicit DeviceSync(const torch::Device& device) : cuda_(device.is_cuda()) {}
  void Wait() const {
    if (cuda_) torch::cuda::synchronize();
  }

 private:
  bool cuda_;
};

class GemmIteration : public KernelIteration {
 public:
  GemmIteration(const GemmShape& g, const torch::Device& device)
      : sync_(device) {
    const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    // A is stored K x M when transposed (op(A) = A^T is M x K), B N x K.
    torch::Tensor a = g.transpose_a ? torch::randn({g.k, g.m}, opts)
                                    : torch::randn({g.m, g.k}, opts);
    torch::Tensor b = g.transpose_b ? torch::randn({g.n, g.k}, opts)
                                    : torch::randn({g.k, g.n}, opts);
    a_ = g.transpose_a ? a.t() : a;
    b_ = g.transpose_b ? b.t() : b;
    c_ = torch::empty({g.m, g.n}, opts);
  }
  void Run() override {
    at::matmul_out(c_, a_, b_);
    sync_.Wait();
  }

 private:
  DeviceSync sync_;
  torch::Tensor a_, b_, c_;
};

class ConvIteration : public KernelIteration {
 public:
  ConvIteration(const ConvShape& c, const torch::Device& device)
      : sync_(device), pass_(c.pass) {
    const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    x_ = torch::randn({c.n, c.c, c.h, c.w}, opts);
    w_ = torch::randn({c.k, c.c, c.r, c.s}, opts);
    stride_ = {c.stride_h, c.stride_w};
    pad_ = {c.pad_h, c.pad_w};
    if (pass_ != ConvPass::kForward) {
      gout_ = torch::randn({c.n, c.k, c.OutH(), c.OutW()}, opts);
    }
  }
  void Run() override {
    if (pass_ == ConvPass::kForward) {
      y_ = torch::conv2d(x_, w_, {}, stride_, pad_);
    } else {
      const bool data = pass_ == ConvPass::kBackwardData;
      auto grads = at::convolution_backward(
          gout_, x_, w_, c10::nullopt, stride_, pad_, {1, 1},
          /*transposed=*/false, {0, 0}, /*groups=*/1, {data, !data, false});
      y_ = data ? std::get<0>(grads) : std::get<1>(grads);
    }
    sync_.Wait();
  }

 private:
  DeviceSync sync_;
  ConvPass pass_;
  torch::Tensor x_, w_, gout_, y_;
  std::vector<int64_t> stride_, pad_;
};

class RnnIteration : public KernelIteration {
 public:
  RnnIteration(const RnnShape& r, const torch::Device& device)
      : sync_(device), backward_(r.backward) {
    const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    const int64_t h = r.hidden;
    if (r.cell == RnnCell::kVanilla) {
      auto m = torch::nn::RNN(torch::nn::RNNOptions(h, h).nonlinearity(torch::kTanh));
      forward_ = [m](const torch::Tensor& x) mutable { return std::get<0>(m->forward(x)); };
      module_ = m.ptr();
    } else if (r.cell == RnnCell::kLstm) {
      auto m = torch::nn::LSTM(torch::nn::LSTMOptions(h, h));
      forward_ = [m](const torch::Tensor& x) mutable { return std::get<0>(m->forward(x)); };
      module_ = m.ptr();
    } else {
      auto m = torch::nn::GRU(torch::nn::GRUOptions(h, h));
      forward_ = [m](const torch::Tensor& x) mutable { return std::get<0>(m->forward(x)); };
      module_ = m.ptr();
    }
    module_->to(device);
    x_ = torch::randn({r.steps, r.batch, h}, opts);
    if (backward_) {
      x_.set_requires_grad(true);
      gout_ = torch::randn({r.steps, r.batch, h}, opts);
      wrt_ = module_->parameters();
      wrt_.push_back(x_);
    }
  }
  void Run() override {
    if (!backward_) {
      torch::NoGradGuard no_grad;
      y_ = forward_(x_);
    } else {
      torch::Tensor y = forward_(x_);
      grads_ = torch::autograd::grad({y}, wrt_, {gout_});
    }
    sync_.Wait();
  }

 private:
  DeviceSync sync_;
  bool backward_;
  std::shared_ptr<torch::nn::Module> module_;
  std::function<torch::Tensor(const torch::Tensor&)> forward_;
  torch::Tensor x_, gout_, y_;
  std::vector<torch::Tensor> wrt_, grads_;
};

}  // namespace

std::unique_ptr<KernelIteration> KernelIteration::Build(
    const KernelShape& shape, const torch::Device& device) {
  switch (shape.family) {
    case KernelFamily::kGemm:
      return std::make_unique<GemmIteration>(shape.gemm, device);
    case KernelFamily::kConv:
      return std::make_unique<ConvIteration>(shape.conv, device);
    case KernelFamily::kRnn:
      return std::make_unique<RnnIteration>(shape.rnn, device);
  }
  return nullptr;
}

}  // namespace powersweep
