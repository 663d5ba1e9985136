#include "agent/trace/syscall_names.h"

#include <sys/syscall.h>

#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace powersweep {
namespace {

struct Entry {
  long nr;
  const char* name;
};

// Every __NR_<name> the C library defines, as the compiler resolves it.
constexpr Entry kEntries[] = {
#include "syscall_names.inc"
};

const std::unordered_map<int64_t, std::string>& Table() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<int64_t, std::string>();
    for (const Entry& e : kEntries) t->emplace(e.nr, e.name);  // first wins
    return t;
  }();
  return *table;
}

}  // namespace

std::string SyscallName(int64_t nr) {
  auto it = Table().find(nr);
  if (it != Table().end()) return it->second;
  return absl::StrCat("nr_", nr);
}

int SyscallNameCount() { return static_cast<int>(Table().size()); }

}  // namespace powersweep
