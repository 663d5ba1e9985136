#include "agent/run/settle.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"

namespace powersweep {
namespace {

constexpr absl::Duration kReadEvery = absl::Seconds(1);

struct Readings {
  int n = 0;
  double power_sum_mw = 0;
  int power_n = 0;
  v1::Provenance power_provenance = v1::PROVENANCE_UNSPECIFIED;
  std::optional<double> last_temp_c;
};

// `t_s`: seconds since the settle began (platforms that integrate energy
// counters, like RAPL, need advancing sample times).
void Read(Platform* platform, double t_s, IdleReference* reference,
          Readings* r) {
  v1::TelemetrySample sample;
  sample.set_t_s(t_s);
  platform->Sample({}, &sample);
  ++r->n;
  if (sample.power_mw() > 0) {
    r->power_sum_mw += sample.power_mw();
    ++r->power_n;
    r->power_provenance = sample.power_provenance();
  }
  r->last_temp_c = BoardTemperature(sample);
  if (r->last_temp_c) reference->Observe(*r->last_temp_c);
}

}  // namespace

void IdleReference::Observe(double celsius) {
  if (!celsius_ || celsius < *celsius_) celsius_ = celsius;
}

v1::RunConditions SettleBoard(const v1::Settle& settle, Platform* platform,
                              Clock* clock, IdleReference* reference,
                              const std::function<bool()>& cancelled) {
  v1::RunConditions c;
  Readings r;
  const int64_t start_ns = clock->MonotonicNanos();
  auto waited_s = [&] { return (clock->MonotonicNanos() - start_ns) * 1e-9; };
  Read(platform, waited_s(), reference, &r);
  if (settle.temp_band_c() > 0) {
    const double max_wait_s = settle.max_wait_s();
    std::string outcome;
    while (true) {
      if (!r.last_temp_c) {
        outcome = "no temperature sensor";
        break;
      }
      const double limit = *reference->celsius() + settle.temp_band_c();
      if (*r.last_temp_c <= limit) {
        outcome = "settled";
        break;
      }
      if (cancelled()) {
        outcome = "cancelled while settling";
        break;
      }
      if (waited_s() >= max_wait_s) {
        outcome = absl::StrFormat(
            "not settled after %.0fs (%.1f C, idle reference %.1f C + %g C)",
            waited_s(), *r.last_temp_c, *reference->celsius(),
            settle.temp_band_c());
        break;
      }
      clock->SleepFor(kReadEvery);
      Read(platform, waited_s(), reference, &r);
    }
    c.set_settle_outcome(outcome);
  } else if (settle.seconds() > 0) {
    bool stopped = false;
    while (waited_s() + 1e-9 < settle.seconds()) {
      if (cancelled()) {
        stopped = true;
        break;
      }
      clock->SleepFor(std::min(
          kReadEvery, absl::Seconds(settle.seconds() - waited_s())));
      Read(platform, waited_s(), reference, &r);
    }
    c.set_settle_outcome(stopped ? "cancelled while settling" : "fixed wait");
  }
  c.set_settle_waited_s(waited_s());
  if (r.last_temp_c) c.set_start_temp_c(*r.last_temp_c);
  if (reference->celsius()) c.set_idle_reference_c(*reference->celsius());
  if (r.power_n > 0) {
    c.set_idle_power_mw(r.power_sum_mw / r.power_n);
    c.set_idle_power_provenance(r.power_provenance);
  }
  c.set_idle_samples(r.power_n);
  *c.mutable_device() = platform->Identity();
  return c;
}

}  // namespace powersweep
