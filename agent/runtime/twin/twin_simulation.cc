#include "agent/runtime/twin/twin_simulation.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "agent/platform/twin/twin_mode.h"
#include "common/speech_models.h"
#include "common/text_models.h"

namespace powersweep {
namespace {

// The sequence models' token fields, as the workload fills them
// (workloads/runner/step.cc): tokens = samples x seq_len (memnet: x its
// sentences), except in
// generation (gpt2_small inference), where tokens = samples x generated
// tokens, the time to first token is the prompt's share of the compute
// (prefill MACs over all MACs, a modeled split) and the per-token latency
// the rest over the other generated tokens.
void SetTokenFields(const TwinWorkloadShape& shape, double compute_s,
                    v1::MinibatchRecord* r) {
  const ModelCost& cost = shape.cost;
  const int64_t batch = shape.batch_size;
  if (FindSpeechModel(cost.name) != nullptr) {
    r->set_tokens(batch * cost.input.size);  // deepspeech2's frames
    return;
  }
  if (!IsSequenceModel(cost.name)) return;
  if (shape.train || cost.generated_tokens < 1) {
    // memnet counts every sentence's words (sample_rows of them).
    const TextModelLimits* t = FindTextModel(cost.name);
    r->set_tokens(batch * cost.input.size * (t != nullptr ? t->sample_rows : 1));
    return;
  }
  r->set_tokens(batch * cost.generated_tokens);
  const double macs = cost.forward_macs + cost.infer_extra_macs;
  const double ttft = macs > 0 ? compute_s * cost.forward_macs / macs : 0;
  r->set_ttft_s(ttft);
  if (cost.generated_tokens >= 2) {
    r->set_per_token_s((compute_s - ttft) / (cost.generated_tokens - 1));
  }
}

constexpr double kHiddenSampleHz = 10;  // energy trace when none is emitted
constexpr double kLossNoiseSigma = 0.05;

}  // namespace

TwinSimulation::TwinSimulation(TwinSimulationConfig config)
    : config_(std::move(config)),
      sample_hz_(config_.telemetry_hz > 0 ? config_.telemetry_hz
                                          : kHiddenSampleHz),
      emit_samples_(config_.telemetry_hz > 0),
      batches_per_epoch_(config_.perf->BatchesPerEpoch(config_.shape)),
      rng_(config_.noise_seed) {
  startup_s_ = config_.perf->StartupSeconds(config_.op, config_.shape,
                                            config_.cached_at_start);
  DrawMinibatch();
}

void TwinSimulation::DrawMinibatch() {
  pending_ = config_.perf->Draw(config_.op, config_.shape, done_, &rng_,
                               config_.cached_at_start);
  pending_load_ = config_.perf->LoadOf(pending_, config_.op, config_.shape);
}

// Mirrors workloads/runner/stop_condition.cc (same order of checks).
bool TwinSimulation::StopAfter(int64_t done, double timing_elapsed_s) const {
  if (config_.minibatches > 0 && done >= config_.minibatches) return true;
  if (config_.epochs > 0 && done / batches_per_epoch_ >= config_.epochs) {
    return true;
  }
  return config_.duration_s > 0 && timing_elapsed_s >= config_.duration_s;
}

void TwinSimulation::MakeSample(double t_s, const PhaseLoad& load,
                                TwinEvent* event) {
  event->kind = TwinEvent::kSample;
  event->t_s = t_s;
  event->load = load;
  v1::TelemetrySample& s = event->sample;
  s.Clear();
  s.set_t_s(t_s);
  const double power_mw =
      FillTwinSample(config_.perf->twin_class(), config_.perf->variation(),
                     config_.op, load, &s);
  s.set_proc_cpu_s(std::min(t_s, startup_s_) + cpu_s_);
  s.set_proc_rss_bytes(kTwinWorkloadRssBytes);
  s.set_mem_used_bytes(s.mem_used_bytes() + kTwinWorkloadRssBytes);
  if (have_last_power_) {
    energy_j_ += (t_s - last_t_s_) * (power_mw + last_power_mw_) / 2 * 1e-3;
  }
  have_last_power_ = true;
  last_t_s_ = t_s;
  last_power_mw_ = power_mw;
  now_s_ = t_s;
}

bool TwinSimulation::Next(TwinEvent* event) {
  const PerfModel& perf = *config_.perf;
  while (true) {
    if (state_ == State::kDone) return false;
    if (state_ == State::kEnding) {
      if (!end_sample_done_) {
        end_sample_done_ = true;
        if (!have_last_power_ || last_t_s_ < end_s_) {
          MakeSample(end_s_,
                     end_s_ < startup_s_ ? perf.StartupLoad(config_.op)
                                         : pending_load_,
                     event);
          if (emit_samples_) return true;
        }
      }
      state_ = State::kDone;
      if (timed_out_) return false;
      event->kind = TwinEvent::kFinished;
      event->t_s = end_s_;
      v1::WorkloadFinished& f = event->finished;
      f.Clear();
      f.set_minibatches(done_);
      f.set_epochs_completed(static_cast<int32_t>(done_ / batches_per_epoch_));
      f.set_elapsed_s(end_s_ - startup_s_);
      if (config_.minibatches > 0 && done_ >= config_.minibatches) {
        f.set_stop_reason("minibatches");
      } else if (config_.epochs > 0 &&
                 done_ / batches_per_epoch_ >= config_.epochs) {
        f.set_stop_reason("epochs");
      } else {
        f.set_stop_reason("duration");
      }
      now_s_ = end_s_;
      return true;
    }
    // Running.
    if (!start_sample_done_) {
      start_sample_done_ = true;
      MakeSample(0, perf.StartupLoad(config_.op), event);
      if (emit_samples_) return true;
      continue;
    }
    const double mb_end = startup_s_ + pending_start_s_ + pending_.e2e_s;
    const double sample_t = static_cast<double>(next_sample_k_) / sample_hz_;
    if (config_.timeout_s > 0 && std::min(mb_end, sample_t) > config_.timeout_s) {
      timed_out_ = true;
      end_s_ = config_.timeout_s;
      state_ = State::kEnding;
      continue;
    }
    if (sample_t < mb_end) {
      ++next_sample_k_;
      MakeSample(sample_t,
                 sample_t < startup_s_ ? perf.StartupLoad(config_.op)
                                       : pending_load_,
                 event);
      if (emit_samples_) return true;
      continue;
    }
    event->kind = TwinEvent::kMinibatch;
    event->t_s = mb_end;
    event->load = pending_load_;
    v1::MinibatchRecord& r = event->record;
    r.Clear();
    r.set_epoch(static_cast<int32_t>(done_ / batches_per_epoch_));
    r.set_index(done_);
    r.set_t_start_s(startup_s_ + pending_start_s_);  // on the run clock
    r.set_stall_s(pending_.stall_s);
    r.set_compute_s(pending_.compute_s);
    r.set_e2e_s(pending_.e2e_s);
    r.set_samples(config_.shape.batch_size);
    SetTokenFields(config_.shape, pending_.compute_s, &r);
    if (done_ % batches_per_epoch_ == 0) {
      r.set_page_cache_resident(perf.ResidentFraction(
          config_.shape, done_ / batches_per_epoch_, config_.cached_at_start));
    }
    if (config_.shape.train) {
      r.set_loss((0.35 + 1.95 * std::exp(-static_cast<double>(done_) / 200)) *
                 rng_.LogNormalUnitMean(kLossNoiseSigma));
    }
    cpu_s_ += pending_.compute_s + pending_.record_s + pending_.fetch_s;
    ++done_;
    pending_start_s_ += pending_.e2e_s;
    now_s_ = mb_end;
    if (StopAfter(done_, pending_start_s_)) {
      end_s_ = mb_end;
      state_ = State::kEnding;
    } else {
      DrawMinibatch();
    }
    return true;
  }
}

}  // namespace powersweep
