#include "controller/modeling/plan.h"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/modeling/model_form.h"

namespace powersweep::modeling {
namespace {

constexpr int64_t kMaxCandidates = 50000;
constexpr double kRidge = 1e-3;

// Knobs with more than one value in the space.
ActiveKnobs SpaceKnobs(const ModeSpace& space) {
  const DeviceClassSpec& s = space.spec();
  ActiveKnobs k;
  k.cores = space.cores() > 1;
  k.cpu_freq = s.cpu_freqs_khz.size() > 1;
  k.gpu_freq = s.gpu_freqs_hz.size() > 1;
  k.mem_freq = s.mem_freqs_hz.size() > 1;
  return k;
}

CustomMode Corner(const ModeSpace& space, bool max) {
  const DeviceClassSpec& s = space.spec();
  auto pick = [max](const std::vector<int64_t>& t) -> int64_t {
    if (t.empty()) return 0;
    return max ? t.back() : t.front();
  };
  CustomMode m;
  m.cpu_cores = max ? space.cores() : 1;
  m.cpu_freq_khz = pick(s.cpu_freqs_khz);
  m.gpu_freq_hz = pick(s.gpu_freqs_hz);
  m.mem_freq_hz = pick(s.mem_freqs_hz);
  return m;
}

constexpr int kCenterFrom = 4;

// Every knob at the table value nearest the middle of its range, half the
// cores (rounded up).
CustomMode Center(const ModeSpace& space) {
  const DeviceClassSpec& s = space.spec();
  auto pick = [](const std::vector<int64_t>& t) -> int64_t {
    if (t.empty()) return 0;
    const double mid = (static_cast<double>(t.front()) + t.back()) / 2;
    int64_t best = t.front();
    for (int64_t v : t) {
      if (std::abs(v - mid) < std::abs(best - mid)) best = v;
    }
    return best;
  };
  CustomMode m;
  m.cpu_cores = (space.cores() + 1) / 2;
  m.cpu_freq_khz = pick(s.cpu_freqs_khz);
  m.gpu_freq_hz = pick(s.gpu_freqs_hz);
  m.mem_freq_hz = pick(s.mem_freqs_hz);
  return m;
}

// Design feature rows of the candidates (plan.h).
std::vector<std::vector<double>> DesignRows(
    const std::vector<CustomMode>& modes, const ActiveKnobs& knobs,
    const ModelForm* time_form, const ModelForm* energy_form) {
  std::vector<ScaledMode> xs;
  xs.reserve(modes.size());
  for (const CustomMode& m : modes) xs.push_back(Scale(m));

  const int pt =
      time_form == nullptr
          ? 0
          : static_cast<int>(time_form->ParameterNames(knobs).size());
  const int pe = energy_form == nullptr
                     ? 0
                     : static_cast<int>(energy_form->ParameterNames(knobs).size());
  std::vector<double> nominal;
  if (time_form != nullptr && !time_form->linear()) {
    const std::vector<std::vector<double>> starts = time_form->StartingPoints(
        knobs, xs, std::vector<double>(xs.size(), 1.0));
    nominal = starts.front();
  }
  const TimeEstimate energy_input{1.0, 0.5};
  std::vector<std::vector<double>> rows(modes.size(),
                                        std::vector<double>(pt + pe));
  for (size_t i = 0; i < xs.size(); ++i) {
    double* row = rows[i].data();
    if (time_form == nullptr) {
    } else if (time_form->linear()) {
      time_form->Features(knobs, xs[i], TimeEstimate{}, row);
    } else {
      std::vector<double> params = nominal;
      const double t =
          time_form->Evaluate(knobs, xs[i], TimeEstimate{}, params.data());
      for (int k = 0; k < pt; ++k) {
        const double saved = params[k];
        const double h = 1e-6 * std::max(std::abs(saved), 1e-12);
        params[k] = saved + h;
        const double up =
            time_form->Evaluate(knobs, xs[i], TimeEstimate{}, params.data());
        params[k] = saved - h;
        const double down =
            time_form->Evaluate(knobs, xs[i], TimeEstimate{}, params.data());
        params[k] = saved;
        row[k] = saved * (up - down) / (2 * h) / t;
      }
    }
    if (energy_form != nullptr) {
      energy_form->Features(knobs, xs[i], energy_input, row + pt);
    }
  }
  // Unit root-mean-square columns.
  for (int k = 0; k < pt + pe; ++k) {
    double sq = 0;
    for (const auto& r : rows) sq += r[k] * r[k];
    const double rms = std::sqrt(sq / std::max<size_t>(1, rows.size()));
    if (rms > 0) {
      for (auto& r : rows) r[k] /= rms;
    }
  }
  return rows;
}

// The value of each knob of a mode (cores, CPU, GPU, memory clock).
std::array<int64_t, 4> KnobValues(const CustomMode& m) {
  return {m.cpu_cores, m.cpu_freq_khz, m.gpu_freq_hz, m.mem_freq_hz};
}

// How many of the chosen modes sit at each value of each knob that varies
// in the space, and whether one more mode fits under the cap (plan.h).
class KnobBalance {
 public:
  KnobBalance(const ActiveKnobs& knobs, int cap)
      : active_{knobs.cores, knobs.cpu_freq, knobs.gpu_freq, knobs.mem_freq},
        cap_(cap) {}
  void Add(const CustomMode& m) {
    const std::array<int64_t, 4> v = KnobValues(m);
    for (int k = 0; k < 4; ++k) ++counts_[k][v[k]];
  }
  bool Fits(const CustomMode& m) const {
    const std::array<int64_t, 4> v = KnobValues(m);
    for (int k = 0; k < 4; ++k) {
      if (!active_[k]) continue;
      auto it = counts_[k].find(v[k]);
      if (it != counts_[k].end() && it->second + 1 > cap_) return false;
    }
    return true;
  }

 private:
  std::array<bool, 4> active_;
  int cap_;
  std::array<std::map<int64_t, int>, 4> counts_;
};

struct Block {
  std::vector<Eigen::VectorXd> x;  // design rows of the candidates
  Eigen::MatrixXd m;               // ridge * I + sum of chosen x x'
};

Block MakeBlock(const std::vector<std::vector<double>>& rows) {
  Block b;
  const int p = rows.empty() ? 0 : static_cast<int>(rows[0].size());
  b.x.reserve(rows.size());
  for (const auto& r : rows) {
    b.x.push_back(Eigen::Map<const Eigen::VectorXd>(r.data(), p));
  }
  b.m = kRidge * Eigen::MatrixXd::Identity(p, p);
  return b;
}

absl::StatusOr<ProfilingPlan> Plan(const ModeSpace& space,
                                   const std::string& time_form,
                                   const std::string& energy_form,
                                   const std::vector<CustomMode>& profiled,
                                   int k, bool seed_corners) {
  if (absl::Status s = CheckForm(time_form, Target::kTime); !s.ok()) return s;
  if (!energy_form.empty()) {
    if (absl::Status s = CheckForm(energy_form, Target::kEnergy); !s.ok()) {
      return s;
    }
  }
  const int64_t size = space.Size();
  if (size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the mode space of ", space.spec().name, " is empty"));
  }
  if (k < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the number of modes to propose must be at least 1, got ",
                     k));
  }
  const ActiveKnobs knobs = SpaceKnobs(space);
  const ModelForm& tf = *FindForm(time_form);
  if (absl::Status s = tf.Applicable(knobs); !s.ok()) return s;
  const ModelForm* ef = energy_form.empty() ? nullptr : FindForm(energy_form);

  std::vector<int64_t> profiled_idx;
  for (const CustomMode& m : profiled) {
    absl::StatusOr<int64_t> i = space.IndexOf(m);
    if (!i.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("profiled mode ", ModeToString(m), ": ",
                       i.status().message()));
    }
    if (std::find(profiled_idx.begin(), profiled_idx.end(), *i) ==
        profiled_idx.end()) {
      profiled_idx.push_back(*i);
    }
  }

  // Candidates: all modes, or a deterministic stride, plus the corners.
  const int64_t stride = (size + kMaxCandidates - 1) / kMaxCandidates;
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < size; i += stride) idx.push_back(i);
  const int64_t max_corner = *space.IndexOf(Corner(space, true));
  const int64_t min_corner = *space.IndexOf(Corner(space, false));
  const int64_t center = *space.IndexOf(Center(space));
  for (int64_t c : {max_corner, min_corner, center}) {
    if (c % stride != 0) idx.push_back(c);
  }
  for (int64_t p : profiled_idx) {
    if (p % stride != 0) idx.push_back(p);
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  const int64_t left = static_cast<int64_t>(idx.size() - profiled_idx.size());
  if (k > left) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot propose ", k, " modes: only ", left,
        " candidate modes of ", space.spec().name, " are not profiled yet"));
  }
  std::vector<CustomMode> modes;
  modes.reserve(idx.size());
  for (int64_t i : idx) modes.push_back(*space.At(i));

  // One block per form: the criterion is the sum of their log dets.
  std::vector<Block> blocks;
  blocks.push_back(MakeBlock(DesignRows(modes, knobs, &tf, nullptr)));
  if (ef != nullptr) {
    blocks.push_back(MakeBlock(DesignRows(modes, knobs, nullptr, ef)));
  }
  std::vector<char> taken(idx.size(), 0);
  const int total = static_cast<int>(profiled_idx.size()) + k;
  KnobBalance balance(knobs, (total + 1) / 2);
  auto position = [&](int64_t index) {
    return std::lower_bound(idx.begin(), idx.end(), index) - idx.begin();
  };
  auto add = [&](size_t j) {
    taken[j] = 1;
    balance.Add(modes[j]);
    for (Block& b : blocks) b.m += b.x[j] * b.x[j].transpose();
  };
  for (int64_t pi : profiled_idx) add(position(pi));

  ProfilingPlan plan;
  plan.time_form = time_form;
  plan.energy_form = energy_form;
  plan.candidates = static_cast<int64_t>(idx.size());
  auto take = [&](size_t j) {
    add(j);
    plan.indices.push_back(idx[j]);
    plan.modes.push_back(modes[j]);
  };
  if (seed_corners) {
    for (int64_t c : {max_corner, min_corner}) {
      const size_t j = position(c);
      if (static_cast<int>(plan.modes.size()) < k && !taken[j]) take(j);
    }
  }
  // A first plan of 4 or more modes ends with the center (plan.h).
  const size_t center_j = position(center);
  const bool center_last =
      seed_corners && k >= kCenterFrom && !taken[center_j];
  while (static_cast<int>(plan.modes.size()) < k - (center_last ? 1 : 0)) {
    std::vector<Eigen::MatrixXd> inv;
    for (const Block& b : blocks) {
      inv.push_back(
          b.m.ldlt().solve(Eigen::MatrixXd::Identity(b.m.rows(), b.m.cols())));
    }
    bool any_fits = false;
    auto open = [&](size_t j) {
      return !taken[j] && !(center_last && j == center_j);
    };
    for (size_t j = 0; j < idx.size() && !any_fits; ++j) {
      any_fits = open(j) && balance.Fits(modes[j]);
    }
    double best = -1;
    size_t best_j = 0;
    for (size_t j = 0; j < idx.size(); ++j) {
      if (!open(j)) continue;
      if (any_fits && !balance.Fits(modes[j])) continue;
      double gain = 0;
      for (size_t b = 0; b < blocks.size(); ++b) {
        gain += std::log1p(blocks[b].x[j].dot(inv[b] * blocks[b].x[j]));
      }
      if (gain > best) {
        best = gain;
        best_j = j;
      }
    }
    take(best_j);
  }
  if (center_last) take(center_j);
  for (const Block& b : blocks) {
    plan.log_det += b.m.ldlt().vectorD().array().log().sum();
  }
  return plan;
}

}  // namespace

absl::StatusOr<ProfilingPlan> PlanProfiling(const ModeSpace& space,
                                            const std::string& time_form,
                                            int k,
                                            const std::string& energy_form) {
  return Plan(space, time_form, energy_form, {}, k, /*seed_corners=*/true);
}

absl::StatusOr<ProfilingPlan> PlanNextModes(
    const ModeSpace& space, const std::string& time_form,
    const std::vector<CustomMode>& profiled, int k,
    const std::string& energy_form) {
  return Plan(space, time_form, energy_form, profiled, k,
              /*seed_corners=*/false);
}

}  // namespace powersweep::modeling
