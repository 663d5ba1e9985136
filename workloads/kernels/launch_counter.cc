#include "workloads/kernels/launch_counter.h"

#include <ATen/record_function.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace powersweep {
namespace {

std::atomic<int64_t> g_launches{0};
// POWERSWEEP_LAUNCH_TRACE set: every counted op's name goes to stderr.
bool g_trace = false;
// Per thread: for each op entered and not yet left, whether an op it
// dispatched (directly or further down) was counted.
thread_local std::vector<bool> t_counted_below;

bool IsKernelFree(const char* name) {
  static constexpr const char* kPrefixes[] = {"aten::empty", "aten::_empty"};
  for (const char* p : kPrefixes) {
    if (std::strncmp(name, p, std::strlen(p)) == 0) return true;
  }
  static constexpr const char* kNames[] = {
      "aten::as_strided", "aten::view", "aten::_unsafe_view", "aten::t",
      "aten::transpose", "aten::expand", "aten::slice", "aten::select",
      "aten::narrow", "aten::unsqueeze", "aten::squeeze", "aten::reshape",
      "aten::_reshape_alias", "aten::permute", "aten::detach", "aten::alias",
      "aten::unbind", "aten::split", "aten::split_with_sizes", "aten::chunk",
      "aten::resize_", "aten::lift", "aten::lift_fresh", "aten::size",
      "aten::stride", "aten::is_same_size", "aten::result_type",
      "aten::set_", "aten::_has_compatible_shallow_copy_type",
      "aten::contiguous", "aten::expand_as", "aten::view_as",
      "aten::numpy_T", "aten::flatten", "aten::unflatten",
      "aten::resolve_conj", "aten::resolve_neg", "aten::conj",
      "aten::_conj", "aten::as_strided_", "aten::is_complex",
      "aten::broadcast_tensors", "aten::unsafe_split",
      "aten::unsafe_chunk", "aten::cudnn_is_acceptable",
      "aten::_nnpack_available", "aten::is_floating_point", "aten::dim",
      "aten::item", "aten::_local_scalar_dense", "aten::scalar_tensor"};
  for (const char* n : kNames) {
    if (std::strcmp(name, n) == 0) return true;
  }
  return false;
}

// Ops that other ops call to prepare their output (addmm copies the bias
// into it): counted themselves, without hiding the caller's own kernel.
bool IsHelper(const char* name) {
  return std::strcmp(name, "aten::copy_") == 0 ||
         std::strcmp(name, "aten::fill_") == 0 ||
         std::strcmp(name, "aten::zero_") == 0;
}

std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction&) {
  t_counted_below.push_back(false);
  return nullptr;
}

void OnEnd(const at::RecordFunction& fn, at::ObserverContext*) {
  if (t_counted_below.empty()) return;  // entered before the counter existed
  const bool below = t_counted_below.back();
  t_counted_below.pop_back();
  const bool counted = !below && !IsKernelFree(fn.name());
  if (counted) {
    g_launches.fetch_add(1, std::memory_order_relaxed);
    if (g_trace) std::fprintf(stderr, "launch %s\n", fn.name());
  }
  // A helper's kernel (an op copying a bias into its output first) does
  // not stand for its caller's.
  if (((counted && !IsHelper(fn.name())) || below) &&
      !t_counted_below.empty()) {
    t_counted_below.back() = true;
  }
}

}  // namespace

LaunchCounter::LaunchCounter() {
  g_launches.store(0);
  g_trace = std::getenv("POWERSWEEP_LAUNCH_TRACE") != nullptr;
  handle_ = at::addGlobalCallback(
      at::RecordFunctionCallback(OnStart, OnEnd)
          .scopes({at::RecordScope::FUNCTION}));
}

LaunchCounter::~LaunchCounter() { at::removeCallback(handle_); }

int64_t LaunchCounter::launches() const { return g_launches.load(); }

}  // namespace powersweep
