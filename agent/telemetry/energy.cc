#include "agent/telemetry/energy.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace powersweep {
namespace {

// Power at `t` on the segment [a, b] (linear interpolation).
double Lerp(const PowerPoint& a, const PowerPoint& b, double t) {
  const double dt = b.t_s - a.t_s;
  if (dt <= 0) return 0.5 * (a.power_mw + b.power_mw);
  return a.power_mw + (b.power_mw - a.power_mw) * (t - a.t_s) / dt;
}

bool ByTime(const PowerPoint& a, const PowerPoint& b) { return a.t_s < b.t_s; }

EnergyResult Integrate(std::vector<PowerPoint> points, int provenance,
                       const std::vector<v1::MinibatchRecord>& records,
                       double offset_s) {
  std::stable_sort(points.begin(), points.end(), ByTime);
  EnergyResult r;
  r.samples = static_cast<int>(points.size());
  r.provenance = static_cast<v1::Provenance>(provenance);
  if (points.empty()) return r;
  r.first_t_s = points.front().t_s;
  r.last_t_s = points.back().t_s;
  r.energy_j = IntegrateJoules(points, r.first_t_s, r.last_t_s);
  if (!records.empty()) {
    std::vector<Interval> stall, compute;
    PhaseIntervals(records, offset_s, &stall, &compute);
    r.stall_j = IntegrateJoulesOver(points, stall);
    r.compute_j = IntegrateJoulesOver(points, compute);
  }
  return r;
}

}  // namespace

double EnergyResult::MeanPowerMw() const {
  const double span = covered_s();
  return span > 0 ? energy_j * 1000.0 / span : 0;
}

std::vector<Interval> MergeIntervals(std::vector<Interval> intervals) {
  intervals.erase(std::remove_if(intervals.begin(), intervals.end(),
                                 [](const Interval& i) {
                                   return !(i.second > i.first);
                                 }),
                  intervals.end());
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> out;
  for (const Interval& i : intervals) {
    if (!out.empty() && i.first <= out.back().second) {
      out.back().second = std::max(out.back().second, i.second);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

double IntegrateJoules(const std::vector<PowerPoint>& points, double a,
                       double b) {
  if (points.size() < 2) return 0;
  a = std::max(a, points.front().t_s);
  b = std::min(b, points.back().t_s);
  if (!(b > a)) return 0;
  // First segment whose end is after a.
  auto it = std::upper_bound(points.begin(), points.end(), PowerPoint{a, 0},
                             ByTime);
  if (it == points.begin()) ++it;
  double mj = 0;  // mW x s
  for (; it != points.end(); ++it) {
    const PowerPoint& p0 = *(it - 1);
    const PowerPoint& p1 = *it;
    const double x0 = std::max(a, p0.t_s);
    const double x1 = std::min(b, p1.t_s);
    if (x1 > x0) mj += 0.5 * (Lerp(p0, p1, x0) + Lerp(p0, p1, x1)) * (x1 - x0);
    if (p1.t_s >= b) break;
  }
  return mj / 1000.0;
}

double IntegrateJoulesOver(const std::vector<PowerPoint>& points,
                           const std::vector<Interval>& intervals) {
  double j = 0;
  for (const Interval& i : MergeIntervals(intervals)) {
    j += IntegrateJoules(points, i.first, i.second);
  }
  return j;
}

void PhaseIntervals(const std::vector<v1::MinibatchRecord>& records,
                    double offset_s, std::vector<Interval>* stall,
                    std::vector<Interval>* compute) {
  for (const v1::MinibatchRecord& m : records) {
    // Warm-up minibatches are left out of the phase split, as out of the
    // run's aggregates.
    if (m.warmup()) continue;
    const double end = offset_s + m.t_start_s() + m.e2e_s();
    const double compute_start = end - m.compute_s();
    compute->emplace_back(compute_start, end);
    // A CUDA run's copy lies between the fetch and the compute.
    const double fetch_end = compute_start - m.h2d_s();
    stall->emplace_back(fetch_end - m.stall_s(), fetch_end);
  }
}

EnergyResult ComputeEnergy(const std::vector<v1::TelemetrySample>& samples,
                           const std::vector<v1::MinibatchRecord>& records,
                           double offset_s) {
  std::vector<PowerPoint> points;
  int provenance = v1::PROVENANCE_UNSPECIFIED;
  for (const v1::TelemetrySample& s : samples) {
    if (!(s.power_mw() > 0) || !std::isfinite(s.t_s())) continue;
    points.push_back({s.t_s(), s.power_mw()});
    provenance = std::max<int>(provenance, s.power_provenance());
  }
  return Integrate(std::move(points), provenance, records, offset_s);
}

void EnergyAccumulator::AddSample(const v1::TelemetrySample& sample) {
  if (!(sample.power_mw() > 0) || !std::isfinite(sample.t_s())) return;
  absl::MutexLock lock(&mu_);
  points_.push_back({sample.t_s(), sample.power_mw()});
  provenance_ = std::max<int>(provenance_, sample.power_provenance());
}

void EnergyAccumulator::AddRecord(const v1::MinibatchRecord& record,
                                  double arrival_t_s) {
  const double offset = arrival_t_s - (record.t_start_s() + record.e2e_s());
  absl::MutexLock lock(&mu_);
  records_.push_back(record);
  if (!have_offset_ || offset < offset_s_) offset_s_ = offset;
  have_offset_ = true;
}

double EnergyAccumulator::WorkloadOffsetS() const {
  absl::MutexLock lock(&mu_);
  return offset_s_;
}

EnergyResult EnergyAccumulator::Result() const {
  absl::MutexLock lock(&mu_);
  return Integrate(points_, provenance_, records_, offset_s_);
}

void FillRunEnergy(const EnergyResult& energy, bool baseload,
                   double agent_cpu_s, double wall_s, v1::RunResult* result) {
  if (energy.samples >= 2) {
    result->set_energy_j(energy.energy_j);
    result->set_energy_provenance(energy.provenance);
    result->set_energy_stall_j(energy.stall_j);
    result->set_energy_compute_j(energy.compute_j);
    result->set_energy_span_s(energy.covered_s());
    if (baseload) result->set_baseload_power_mw(energy.MeanPowerMw());
  } else {
    result->set_energy_j(0);
    result->set_energy_provenance(v1::PROVENANCE_UNSPECIFIED);
  }
  result->set_agent_cpu_fraction(wall_s > 0 ? agent_cpu_s / wall_s : 0);
}

double ProcessCpuSeconds() {
  timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

}  // namespace powersweep
