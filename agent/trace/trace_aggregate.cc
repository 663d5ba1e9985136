#include "agent/trace/trace_aggregate.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "agent/trace/syscall_names.h"

namespace powersweep {

IntervalStats IntervalsOf(std::vector<int64_t> times_ns) {
  IntervalStats s;
  if (times_ns.size() < 2) return s;
  std::sort(times_ns.begin(), times_ns.end());
  std::vector<double> gaps;
  gaps.reserve(times_ns.size() - 1);
  for (size_t i = 1; i < times_ns.size(); ++i) {
    gaps.push_back((times_ns[i] - times_ns[i - 1]) * 1e-9);
  }
  s.count = static_cast<int64_t>(gaps.size());
  double sum = 0;
  for (double g : gaps) sum += g;
  s.mean_s = sum / gaps.size();
  if (gaps.size() > 1) {
    double ss = 0;
    for (double g : gaps) ss += (g - s.mean_s) * (g - s.mean_s);
    s.sd_s = std::sqrt(ss / (gaps.size() - 1));
  }
  std::vector<double> sorted = gaps;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.p50_s = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  s.max_s = sorted.back();
  return s;
}

void TraceAggregator::AddBlock(bool insert, char op, int64_t bytes) {
  auto& row = block_[absl::StrCat(insert ? "insert " : "issue ",
                                  std::string(1, op == '\0' ? '?' : op))];
  ++row.first;
  row.second += bytes;
}

void TraceAggregator::AddWriteback(const std::string& reason, int64_t t_ns) {
  writeback_[reason].push_back(t_ns);
}

void TraceAggregator::SetCount(v1::Trace kind, const std::string& name,
                               bool system_wide, int64_t count) {
  v1::TraceCount c;
  c.set_kind(kind);
  c.set_name(name);
  c.set_system_wide(system_wide);
  c.set_count(count);
  counts_.push_back(c);
}

v1::RunTraces TraceAggregator::Finish() const {
  std::vector<v1::TraceCount> rows = counts_;
  for (const auto& [nr, n] : syscalls_) {
    v1::TraceCount c;
    c.set_kind(v1::TRACE_SYSCALLS);
    c.set_name(SyscallName(nr));
    c.set_count(n);
    rows.push_back(c);
  }
  for (const auto& [name, cb] : block_) {
    v1::TraceCount c;
    c.set_kind(v1::TRACE_BLOCK);
    c.set_name(name);
    c.set_system_wide(true);
    c.set_count(cb.first);
    c.set_bytes(cb.second);
    rows.push_back(c);
  }
  // Every reason's starts together ("all"), as the study's Fig. 3 draws
  // the intervals between write-backs whatever their reason.
  std::map<std::string, std::vector<int64_t>> writeback = writeback_;
  if (!writeback.empty()) {
    std::vector<int64_t>& all = writeback["all"];
    for (const auto& [reason, times] : writeback_) {
      all.insert(all.end(), times.begin(), times.end());
    }
  }
  for (const auto& [reason, times] : writeback) {
    v1::TraceCount c;
    c.set_kind(v1::TRACE_WRITEBACK);
    c.set_name(reason);
    c.set_system_wide(true);
    c.set_count(static_cast<int64_t>(times.size()));
    const IntervalStats s = IntervalsOf(times);
    if (s.count > 0) {
      c.set_interval_count(s.count);
      c.set_interval_mean_s(s.mean_s);
      c.set_interval_sd_s(s.sd_s);
      c.set_interval_p50_s(s.p50_s);
      c.set_interval_max_s(s.max_s);
    }
    rows.push_back(c);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const v1::TraceCount& a, const v1::TraceCount& b) {
                     if (a.kind() != b.kind()) return a.kind() < b.kind();
                     if (a.count() != b.count()) return a.count() > b.count();
                     return a.name() < b.name();
                   });
  v1::RunTraces out;
  for (v1::TraceCount& r : rows) *out.add_counts() = std::move(r);
  out.set_lost_events(lost_);
  return out;
}

}  // namespace powersweep
