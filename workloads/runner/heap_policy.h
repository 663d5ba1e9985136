// KeepFreedMemoryInTheHeap: tells the C library's allocator (glibc's
// malloc) to keep memory a run frees for reuse instead of handing it back
// to the kernel, so the tensors of one minibatch reuse the pages of the
// last one rather than faulting fresh zeroed pages in every time.
//
// By default glibc serves an allocation above its mmap threshold (128 KiB,
// raised as large blocks are freed) with a fresh mmap and returns it with
// munmap on free, and trims the heap's top above 128 KiB. A minibatch of
// dqn inference (32 x 5 x 84 x 84 floats and the convolutions'
// intermediates) then cost about 1,700 page faults: 106,500 faults for 30
// minibatches against 26,300 with this policy, and 3.80 s against 3.54 s
// (README, "Performance"). The policy: an mmap threshold of 32 MiB
// (glibc's largest on 64-bit; larger blocks still get their own mapping),
// a trim threshold of 1 GiB and a top pad of 64 MiB, together: each alone
// makes it worse (197,000 to 263,000 faults), since setting any of them
// turns off glibc's adjustment of the others. The run's peak RSS is unchanged; freed memory
// stays resident until the process exits.
//
// No-op where the C library is not glibc. Call once, early in main, before
// threads start.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_HEAP_POLICY_H_
#define POWERSWEEP_WORKLOADS_RUNNER_HEAP_POLICY_H_

namespace powersweep {

void KeepFreedMemoryInTheHeap();

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_HEAP_POLICY_H_
