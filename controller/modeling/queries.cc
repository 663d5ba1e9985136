#include "controller/modeling/queries.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/modeling/model_form.h"

namespace powersweep::modeling {
namespace {

absl::Status CheckQuery(const std::vector<ModePoint>& points, double budget,
                        const char* what) {
  if (points.empty()) {
    return absl::InvalidArgumentError("no modes to query");
  }
  if (!std::isfinite(budget) || budget <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " budget must be positive and finite, got ", budget));
  }
  return absl::OkStatus();
}

// The index minimising (primary, secondary) among points with
// limit(point) <= budget, or -1.
int Best(const std::vector<ModePoint>& points,
         const std::function<double(const ModePoint&)>& limit, double budget,
         const std::function<double(const ModePoint&)>& primary,
         const std::function<double(const ModePoint&)>& secondary) {
  int best = -1;
  for (size_t i = 0; i < points.size(); ++i) {
    const ModePoint& p = points[i];
    if (!(limit(p) <= budget)) continue;
    if (best < 0 || primary(p) < primary(points[best]) ||
        (primary(p) == primary(points[best]) &&
         secondary(p) < secondary(points[best]))) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

const ModePoint& Lowest(const std::vector<ModePoint>& points,
                        const std::function<double(const ModePoint&)>& v) {
  size_t best = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    if (v(points[i]) < v(points[best])) best = i;
  }
  return points[best];
}

double Time(const ModePoint& p) { return p.time_s; }
double Energy(const ModePoint& p) { return p.energy_j; }
double Power(const ModePoint& p) { return p.power_w; }

bool Dominates(const ModePoint& a, const ModePoint& b) {
  return a.time_s <= b.time_s && a.energy_j <= b.energy_j &&
         (a.time_s < b.time_s || a.energy_j < b.energy_j);
}

}  // namespace

absl::StatusOr<ModePoint> LeastEnergyWithinTime(
    const std::vector<ModePoint>& points, double max_time_s) {
  if (absl::Status s = CheckQuery(points, max_time_s, "epoch time");
      !s.ok()) {
    return s;
  }
  const int i = Best(points, Time, max_time_s, Energy, Time);
  if (i >= 0) return points[i];
  const ModePoint& fastest = Lowest(points, Time);
  return absl::NotFoundError(absl::StrFormat(
      "no mode has epoch time <= %.4g s (the fastest takes %.4g s: %s)",
      max_time_s, fastest.time_s, ModeToString(fastest.mode)));
}

absl::StatusOr<ModePoint> FastestWithinPower(
    const std::vector<ModePoint>& points, double max_power_w) {
  if (absl::Status s = CheckQuery(points, max_power_w, "power"); !s.ok()) {
    return s;
  }
  const int i = Best(points, Power, max_power_w, Time, Energy);
  if (i >= 0) return points[i];
  const ModePoint& lowest = Lowest(points, Power);
  return absl::NotFoundError(absl::StrFormat(
      "no mode has mean power <= %.4g W (the lowest is %.4g W: %s)",
      max_power_w, lowest.power_w, ModeToString(lowest.mode)));
}

absl::StatusOr<ModePoint> FastestWithinEnergy(
    const std::vector<ModePoint>& points, double max_energy_j) {
  if (absl::Status s = CheckQuery(points, max_energy_j, "energy"); !s.ok()) {
    return s;
  }
  const int i = Best(points, Energy, max_energy_j, Time, Energy);
  if (i >= 0) return points[i];
  const ModePoint& lowest = Lowest(points, Energy);
  return absl::NotFoundError(absl::StrFormat(
      "no mode has epoch energy <= %.4g J (the lowest is %.4g J: %s)",
      max_energy_j, lowest.energy_j, ModeToString(lowest.mode)));
}

std::vector<ModePoint> ParetoFront(const std::vector<ModePoint>& points) {
  std::vector<size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (points[a].time_s != points[b].time_s) {
      return points[a].time_s < points[b].time_s;
    }
    return points[a].energy_j < points[b].energy_j;
  });
  std::vector<ModePoint> front;
  for (size_t i : order) {
    const ModePoint& p = points[i];
    if (front.empty() || p.energy_j < front.back().energy_j ||
        (p.energy_j == front.back().energy_j &&
         p.time_s == front.back().time_s)) {
      front.push_back(p);
    }
  }
  return front;
}

absl::StatusOr<FrontMembership> CheckOnFront(
    const std::vector<ModePoint>& points, const CustomMode& mode) {
  const ModePoint* self = nullptr;
  for (const ModePoint& p : points) {
    if (p.mode == mode) {
      self = &p;
      break;
    }
  }
  if (self == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "mode ", ModeToString(mode), " is not among the ", points.size(),
        " modes queried"));
  }
  FrontMembership out;
  out.point = *self;
  for (const ModePoint& p : points) {
    if (!Dominates(p, *self)) continue;
    if (!out.dominated_by || p.energy_j < out.dominated_by->energy_j ||
        (p.energy_j == out.dominated_by->energy_j &&
         p.time_s < out.dominated_by->time_s)) {
      out.dominated_by = p;
    }
  }
  out.on_front = !out.dominated_by.has_value();
  return out;
}

}  // namespace powersweep::modeling
