#include "workloads/torch_status.h"

#include <c10/util/Exception.h>

#include <new>
#include <string>

#include "absl/strings/str_cat.h"

namespace powersweep {

absl::Status CatchTorchErrors(absl::string_view context,
                              const std::function<absl::Status()>& fn) {
  try {
    return fn();
  } catch (const c10::Error& e) {
    std::string what = e.what_without_backtrace();
    return absl::InternalError(
        absl::StrCat(context, ": ", what.substr(0, what.find('\n'))));
  } catch (const std::bad_alloc& e) {
    return absl::ResourceExhaustedError(
        absl::StrCat(context, ": out of memory (", e.what(), ")"));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(context, ": ", e.what()));
  }
}

}  // namespace powersweep
