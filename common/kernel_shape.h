// KernelShape: the problem one DeepBench-style kernel run times, parsed
// from the dataset half of a `KERNEL/SHAPE` workload (common/kernel_names.h).
// SHAPE is either a row of the built-in table (KernelTable(): a documented
// subset of DeepBench's published training and inference shapes) or an
// explicit shape, dash-separated tokens in any order:
//
//   gemm  m<M>-n<N>-k<K>[-nn|-tn|-nt|-tt]
//         C (M x N) = op(A) (M x K) * op(B) (K x N); the letters say whether
//         A and B are transposed (DeepBench's a_t, b_t; default nn).
//         e.g. m1760-n16-k1760-tn
//   conv  n<N>-c<C>-h<H>-w<W>-k<K>-r<R>-s<S>[-pad<P>|-padh<P>-padw<P>]
//         [-stride<U>|-strideh<U>-stridew<U>][-fwd|-bwd-data|-bwd-filter]
//         NCHW input, K filters of C x R (height) x S (width), zero padding
//         (default 0) and stride (default 1); the pass timed: forward
//         (default), the input gradient or the filter gradient.
//         e.g. n8-c3-h224-w224-k64-r3-s3-pad1-bwd-filter
//   rnn   <vanilla|lstm|gru>-h<HIDDEN>-b<BATCH>-t<STEPS>[-fwd|-fwdbwd]
//         one layer, input size = hidden size (as DeepBench), tanh for
//         vanilla; forward only (default) or forward and backward.
//         e.g. gru-h512-b32-t25-fwdbwd
//
// Table rows are named deepbench-<set>-<row>: `set` is train, server or
// device (DeepBench's training_set, inference_server_set and
// inference_device_set of code/kernels/{gemm,conv,rnn}_problems.h) and
// `row` the 1-based row there, so gemm/deepbench-train-1 is
// gemm_problems.h's training_set row 1 (1760, 16, 1760, false, false). A
// conv or rnn row name may end in a pass to override the row's (conv rows
// are forward; rnn train rows fwdbwd, inference rows fwd):
// conv/deepbench-train-18-bwd-data.
//
// Bad shapes are InvalidArgument naming the token and the reason, e.g.
// "conv shape 'n8-c3-h2-w2-k4-r3-s3': the 3x3 filter does not fit the
// 2x2 input with padding 0x0". Every dimension must be 1..kMaxKernelDim
// and a shape's footprint at most kMaxKernelFootprintBytes.
//
// KernelCostOf gives the work of one timed iteration: FLOPs (a
// multiply-add counts 2), the minimum bytes moved, the kernel launches of
// LibTorch 1.13's CPU path (a formula calibrated on the counts the
// workload measures; workloads/kernels/launch_counter.h) and the bytes the
// runner allocates (checked against the memory available before a run
// allocates anything). No LibTorch: the controller validates with it, the
// workload runs it and the twin costs it. Pure functions; thread-safe.
#ifndef POWERSWEEP_COMMON_KERNEL_SHAPE_H_
#define POWERSWEEP_COMMON_KERNEL_SHAPE_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace powersweep {

inline constexpr int64_t kMaxKernelDim = int64_t{1} << 24;
// 1 TiB: more than any device a sweep targets.
inline constexpr double kMaxKernelFootprintBytes = 1099511627776.0;

enum class KernelFamily { kGemm, kConv, kRnn };
enum class ConvPass { kForward, kBackwardData, kBackwardFilter };
enum class RnnCell { kVanilla, kLstm, kGru };

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false, transpose_b = false;
};

struct ConvShape {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input, NCHW
  int64_t k = 0, r = 0, s = 0;         // filters: K x C x R x S
  int64_t pad_h = 0, pad_w = 0;
  int64_t stride_h = 1, stride_w = 1;
  ConvPass pass = ConvPass::kForward;
  int64_t OutH() const { return (h + 2 * pad_h - r) / stride_h + 1; }
  int64_t OutW() const { return (w + 2 * pad_w - s) / stride_w + 1; }
};

struct RnnShape {
  RnnCell cell = RnnCell::kLstm;
  int64_t hidden = 0, batch = 0, steps = 0;
  bool backward = false;  // forward and backward (fwdbwd)
  // Gate blocks of the cell: 1 vanilla, 4 LSTM, 3 GRU.
  int Gates() const;
};

struct KernelShape {
  KernelFamily family = KernelFamily::kGemm;
  GemmShape gemm;
  ConvShape conv;
  RnnShape rnn;
  // The explicit form, tokens in the order of the header comment (defaults
  // spelled out): "m1760-n16-k1760-nn".
  std::string Text() const;
  // "gemm", "conv" or "rnn".
  const char* FamilyName() const;
};

struct KernelCost {
  double flops = 0;            // per iteration
  double bytes = 0;            // operands read and results written once
  double launches = 0;         // LibTorch CPU kernel launches per iteration
  double footprint_bytes = 0;  // what the runner allocates
};

// `kernel` one of kKernelNames; `shape` a table row name or an explicit
// shape. InvalidArgument naming the kernel, the shape and the reason.
absl::StatusOr<KernelShape> ParseKernelShape(absl::string_view kernel,
                                             absl::string_view shape);

KernelCost KernelCostOf(const KernelShape& shape);

struct KernelTableRow {
  const char* kernel;  // "gemm", "conv", "rnn"
  const char* name;    // "deepbench-train-1"
  const char* shape;   // the explicit form
};

// The built-in rows, by kernel then as DeepBench lists them.
const std::vector<KernelTableRow>& KernelTable();

// The row names of `kernel`, in table order.
std::vector<std::string> KernelRowNames(absl::string_view kernel);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_KERNEL_SHAPE_H_
