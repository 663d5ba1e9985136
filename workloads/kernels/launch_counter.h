// LaunchCounter: counts the kernels LibTorch launches on any thread while
// it is alive, through an ATen RecordFunction callback (function scope).
// A "launch" is an ATen op that is not an allocation, view or metadata op
// (empty*, as_strided, view, t, transpose, expand, slice, select, narrow,
// (un)squeeze, reshape, permute, detach, alias, unbind, split, chunk,
// resize_, resolve_conj, ...) and under which no counted op ran other
// than the output helpers copy_, fill_ and zero_ (counted themselves): the
// innermost ops that do the arithmetic (aten::mm under aten::matmul; a
// linear layer's addmm and the copy_ of its bias), i.e. the ones that run
// a kernel on the CPU and launch one on a GPU. The callback costs
// time on every op, so the kernel runner counts during warm-up only.
//
// With the environment variable POWERSWEEP_LAUNCH_TRACE set, the name of
// every op counted is written to stderr ("launch aten::mm").
//
// One LaunchCounter at a time per process (the callback has no state of
// its own); not copyable.
#ifndef POWERSWEEP_WORKLOADS_KERNELS_LAUNCH_COUNTER_H_
#define POWERSWEEP_WORKLOADS_KERNELS_LAUNCH_COUNTER_H_

#include <cstdint>

namespace powersweep {

class LaunchCounter {
 public:
  LaunchCounter();
  ~LaunchCounter();
  LaunchCounter(const LaunchCounter&) = delete;
  LaunchCounter& operator=(const LaunchCounter&) = delete;

  // Launches counted since construction.
  int64_t launches() const;

 private:
  uint64_t handle_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_KERNELS_LAUNCH_COUNTER_H_
