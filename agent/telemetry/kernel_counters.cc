#include "agent/telemetry/kernel_counters.h"

#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

// "key value" lines into a map; InvalidArgument naming the line when a
// value is not an integer. Blank lines are skipped.
absl::StatusOr<std::map<std::string, int64_t>> ParseKeyValues(
    absl::string_view text, absl::string_view what) {
  std::map<std::string, int64_t> out;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    std::vector<absl::string_view> parts =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    int64_t value = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": line ", line_no, " is not \"key integer\": \"",
                       line.substr(0, 80), "\""));
    }
    out[std::string(parts[0])] = value;
  }
  return out;
}

}  // namespace

absl::StatusOr<VmstatCounters> ParseVmstat(absl::string_view text) {
  // One pass over the lines, parsing only the six values used; no map and
  // no allocation (/proc/vmstat has ~180 lines, read on every sample).
  VmstatCounters c;
  struct Key {
    absl::string_view name;
    int64_t* field;
  };
  const Key keys[] = {{"pgfault", &c.pgfault},
                      {"pgmajfault", &c.pgmajfault},
                      {"nr_dirty", &c.nr_dirty_pages},
                      {"nr_writeback", &c.nr_writeback_pages},
                      {"pgpgout", &c.pgpgout_kib},
                      {"nr_written", &c.nr_written_pages}};
  constexpr int kKeys = sizeof(keys) / sizeof(keys[0]);
  bool found[kKeys] = {};
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == absl::string_view::npos) end = text.size();
    absl::string_view line = absl::StripAsciiWhitespace(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    const size_t space = line.find(' ');
    const absl::string_view name = line.substr(0, space);
    for (int k = 0; k < kKeys; ++k) {
      if (name != keys[k].name) continue;
      absl::string_view value =
          space == absl::string_view::npos
              ? absl::string_view()
              : absl::StripAsciiWhitespace(line.substr(space + 1));
      if (!absl::SimpleAtoi(value, keys[k].field)) {
        return absl::InvalidArgumentError(
            absl::StrCat("vmstat: line ", line_no, " is not \"key integer\": \"",
                         line.substr(0, 80), "\""));
      }
      found[k] = true;
      break;
    }
  }
  for (int k = 0; k < kKeys; ++k) {
    if (!found[k]) {
      return absl::InvalidArgumentError(
          absl::StrCat("vmstat: no \"", keys[k].name, "\" line"));
    }
  }
  return c;
}

absl::StatusOr<CgroupMemoryStat> ParseCgroupMemoryStat(absl::string_view text) {
  absl::StatusOr<std::map<std::string, int64_t>> kv =
      ParseKeyValues(text, "memory.stat");
  if (!kv.ok()) return kv.status();
  CgroupMemoryStat s;
  // v1 has "rss" (and "total_rss" with hierarchy); v2 has "anon".
  s.cgroup_v2 = kv->count("anon") > 0 && kv->count("rss") == 0;
  // The value of a v1 key: total_<key> if present, else <key>.
  auto v1 = [&kv](const std::string& key) -> std::optional<int64_t> {
    auto it = kv->find("total_" + key);
    if (it == kv->end()) it = kv->find(key);
    if (it == kv->end()) return std::nullopt;
    return it->second;
  };
  auto v2 = [&kv](const std::string& key) -> std::optional<int64_t> {
    auto it = kv->find(key);
    if (it == kv->end()) return std::nullopt;
    return it->second;
  };
  struct Field {
    const char* v1_key;
    const char* v2_key;
    int64_t* out;
  };
  const Field fields[] = {{"rss", "anon", &s.anon_bytes},
                          {"cache", "file", &s.file_bytes},
                          {"mapped_file", "file_mapped", &s.mapped_file_bytes},
                          {"dirty", "file_dirty", &s.dirty_bytes},
                          {"writeback", "file_writeback", &s.writeback_bytes},
                          {"pgfault", "pgfault", &s.pgfault},
                          {"pgmajfault", "pgmajfault", &s.pgmajfault}};
  for (const Field& f : fields) {
    std::optional<int64_t> v = s.cgroup_v2 ? v2(f.v2_key) : v1(f.v1_key);
    if (!v.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("memory.stat: no \"", s.cgroup_v2 ? f.v2_key : f.v1_key,
                       "\" line (cgroup ", s.cgroup_v2 ? "v2" : "v1", ")"));
    }
    *f.out = *v;
  }
  if (!s.cgroup_v2) {
    s.pgpgin_events = v1("pgpgin");
    s.pgpgout_events = v1("pgpgout");
  }
  return s;
}

VmstatReader::VmstatReader(const std::string& proc_root)
    : file_(proc_root + "/vmstat") {}

absl::StatusOr<VmstatCounters> VmstatReader::Read() {
  PS_RETURN_IF_ERROR(file_.ReadInto(&text_));
  absl::StatusOr<VmstatCounters> c = ParseVmstat(text_);
  if (!c.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file_.path(), ": ", c.status().message()));
  }
  return c;
}

CgroupMemoryStatReader::CgroupMemoryStatReader(std::string memory_stat_path)
    : file_(std::move(memory_stat_path)) {}

absl::StatusOr<CgroupMemoryStat> CgroupMemoryStatReader::Read() {
  PS_ASSIGN_OR_RETURN(std::string text, file_.Read());
  absl::StatusOr<CgroupMemoryStat> s = ParseCgroupMemoryStat(text);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file_.path(), ": ", s.status().message()));
  }
  return s;
}

}  // namespace powersweep
