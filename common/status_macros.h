// Status propagation helpers for storage/ code (internal to this folder).
//   PS_RETURN_IF_ERROR(expr);              // expr is an absl::Status
//   PS_ASSIGN_OR_RETURN(auto x, expr);     // expr is an absl::StatusOr<T>
#ifndef POWERSWEEP_STORAGE_STATUS_MACROS_H_
#define POWERSWEEP_STORAGE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define PS_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::absl::Status ps_status_ = (expr);      \
    if (!ps_status_.ok()) return ps_status_; \
  } while (0)

#define PS_STATUS_CONCAT_INNER_(a, b) a##b
#define PS_STATUS_CONCAT_(a, b) PS_STATUS_CONCAT_INNER_(a, b)

#define PS_ASSIGN_OR_RETURN(lhs, expr)                                      \
  PS_ASSIGN_OR_RETURN_IMPL_(PS_STATUS_CONCAT_(ps_statusor_, __LINE__), lhs, \
                            expr)

#define PS_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

#endif  // POWERSWEEP_STORAGE_STATUS_MACROS_H_
