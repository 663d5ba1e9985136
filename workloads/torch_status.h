// The one adapter where exceptions from LibTorch (c10::Error) or the
// standard library (std::exception, e.g. std::bad_alloc, std::system_error)
// become absl::Status values. Workload code calls torch only inside
// CatchTorchErrors; nothing else in workloads/ catches exceptions.
//
// CatchTorchErrors(context, fn) runs fn and returns its Status; if fn
// throws, it returns kInternal (kResourceExhausted for std::bad_alloc)
// with "<context>: <what>" (the first line of a c10::Error, without its
// backtrace). Thread-safe: it keeps no state.
#ifndef POWERSWEEP_WORKLOADS_TORCH_STATUS_H_
#define POWERSWEEP_WORKLOADS_TORCH_STATUS_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace powersweep {

absl::Status CatchTorchErrors(absl::string_view context,
                              const std::function<absl::Status()>& fn);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_TORCH_STATUS_H_
