#include "agent/runtime/twin/twin_runtime.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/platform/twin/dataset_cost.h"
#include "agent/platform/twin/kernel_cost.h"
#include "agent/platform/twin/twin_workload_cost.h"
#include "agent/runtime/twin/twin_workload.h"
#include "agent/util/seconds_to_nanos.h"
#include "common/status_macros.h"
#include "common/speech_models.h"
#include "common/text_models.h"

namespace powersweep {

TwinRuntime::TwinRuntime(TwinPlatform* platform, Clock* clock,
                         TwinRuntimeOptions options)
    : platform_(platform), clock_(clock), options_(options) {}

void TwinRuntime::SetTelemetry(double hz, SampleCallback on_sample) {
  telemetry_hz_ = hz;
  on_sample_ = std::move(on_sample);
}

absl::Status TwinRuntime::Start(const RuntimeSpec& spec,
                                RecordCallback callback) {
  PS_ASSIGN_OR_RETURN(TwinWorkload w, ParseTwinWorkload(spec.argv));
  if (!w.kernel_shape.empty()) return StartKernel(spec, w, std::move(callback));
  TwinInputOverride input;
  input.classes = w.classes;
  input.input_size = w.input_size;
  input.seq_len = w.seq_len;
  input.vocab = w.vocab;
  PS_ASSIGN_OR_RETURN(TwinWorkloadCost cost,
                      TwinWorkloadCostFor(w.model, w.dataset, input));
  spec_ = spec;
  callback_ = std::move(callback);
  threads_ = w.threads;

  TwinSimulationConfig cfg;
  cfg.perf = &platform_->perf();
  cfg.op = platform_->Current();
  cfg.shape.cost = cost.model;
  cfg.shape.dataset = cost.dataset;
  cfg.shape.train = w.train;
  cfg.shape.batch_size = w.batch_size;
  cfg.shape.loader_workers = w.workers;
  cfg.shape.drop_page_cache = w.drop_page_cache;
  cfg.shape.preload = w.preload;
  if (w.preload) {
    // As the workload: --preload-limit, else --minibatches, else one epoch.
    cfg.shape.preload_minibatches =
        w.preload_limit > 0
            ? w.preload_limit
            : (w.minibatches > 0
                   ? w.minibatches
                   : platform_->perf().BatchesPerEpoch(cfg.shape));
  }
  SetStopAndNoise(spec, w, &cfg);
  // The page cache holds what earlier runs on this twin read of the split.
  cache_key_ = absl::StrCat(w.dataset, w.train ? ":train" : ":infer");
  cached_at_start_ = platform_->CachedFraction(cache_key_);
  cfg.cached_at_start = cached_at_start_;
  shape_ = cfg.shape;
  dataset_path_ = absl::StrCat("twin:", w.dataset);
  sim_ = std::make_unique<TwinSimulation>(std::move(cfg));
  start_ns_ = clock_->MonotonicNanos();
  return absl::OkStatus();
}

void TwinRuntime::SetStopAndNoise(const RuntimeSpec& spec,
                                  const TwinWorkload& w,
                                  TwinSimulationConfig* cfg) {
  cfg->epochs = w.epochs;
  cfg->minibatches = w.minibatches;
  cfg->duration_s = w.duration_s;
  cfg->timeout_s = spec.timeout_s;
  cfg->telemetry_hz = telemetry_hz_;
  const int64_t run_index = platform_->NextRunIndex();
  cfg->noise_seed =
      MixSeed(MixSeed(MixSeed(platform_->seed(),
                              static_cast<uint64_t>(platform_->instance())),
                      w.seed),
              static_cast<uint64_t>(run_index));
}

absl::Status TwinRuntime::StartKernel(const RuntimeSpec& spec,
                                      const TwinWorkload& w,
                                      RecordCallback callback) {
  PS_ASSIGN_OR_RETURN(KernelShape kernel,
                      ParseKernelShape(w.model, w.kernel_shape));
  spec_ = spec;
  callback_ = std::move(callback);
  threads_ = w.threads;
  kernel_ = kernel;
  TwinSimulationConfig cfg;
  cfg.perf = &platform_->perf();
  cfg.op = platform_->Current();
  cfg.shape = TwinKernelShape(kernel);
  SetStopAndNoise(spec, w, &cfg);
  cache_key_ = kKernelDatasetName;
  cached_at_start_ = 1;
  cfg.cached_at_start = 1;
  shape_ = cfg.shape;
  sim_ = std::make_unique<TwinSimulation>(std::move(cfg));
  start_ns_ = clock_->MonotonicNanos();
  return absl::OkStatus();
}

double TwinRuntime::CachedAfterRun() const {
  const PerfModel& perf = platform_->perf();
  // Dropped before every epoch, or too big to stay: nothing remains.
  if (shape_.drop_page_cache || !perf.FitsInPageCache(shape_)) return 0;
  if (shape_.dataset.LoadedAtStart()) return 1;  // read whole at start-up
  const double split =
      static_cast<double>(std::max<int64_t>(1, shape_.dataset.Split(shape_.train).samples));
  const int64_t batches =
      shape_.preload ? shape_.preload_minibatches : sim_->minibatches_done();
  return cached_at_start_ +
         static_cast<double>(batches) * shape_.batch_size / split;
}

v1::BuildProvenance TwinRuntime::Provenance(int threads) const {
  const v1::DeviceIdentity id = platform_->Identity();
  v1::BuildProvenance p;
  p.set_framework("twin-model");
  p.set_framework_version(kTwinModelVersion);
  p.set_binary_fingerprint(absl::StrCat("twin:", id.device_class(), ":seed=",
                                        platform_->seed(), ":instance=",
                                        platform_->instance()));
  p.set_threads(threads);
  p.set_device(absl::StrCat(id.device_class(), " GPU (simulated)"));
  v1::WorkloadInfo* info = p.mutable_workload();
  if (kernel_.has_value()) {
    // As the workload's kernel runner: no parameters or data set.
    const KernelCost k = KernelCostOf(*kernel_);
    info->set_model(kernel_->FamilyName());
    info->set_forward_macs(static_cast<int64_t>(k.flops / 2 + 0.5));
    info->set_compute_device(p.device());
    v1::KernelInfo* ki = info->mutable_kernel();
    ki->set_shape(kernel_->Text());
    ki->set_flops(k.flops);
    ki->set_bytes(k.bytes);
    ki->set_launches(k.launches);  // the formula: the twin counts nothing
    ki->set_footprint_bytes(k.footprint_bytes);
    p.set_kernel(id.kernel());
    p.set_host(id.hostname());
    return p;
  }
  const ModelCost& m = shape_.cost;
  const DatasetCost& d = shape_.dataset;
  info->set_model(m.name);
  info->set_params(static_cast<int64_t>(m.params));
  info->set_forward_macs(static_cast<int64_t>(m.forward_macs));
  if (const TextModelLimits* t = FindTextModel(m.name)) {
    // Token ids: 1 x 1 x (seq_len + the target token of lstm_lm; memnet:
    // 51 sentences of seq_len words).
    info->add_input_shape(1);
    info->add_input_shape(1);
    info->add_input_shape(t->SampleTokens(m.input.size));
    info->set_seq_len(m.input.size);
    info->set_vocab(m.input.classes);
  } else if (const SpeechModelLimits* s = FindSpeechModel(m.name)) {
    // Spectrogram frames of mel bands and the transcript row.
    info->add_input_shape(1);
    info->add_input_shape(m.input.size + 1);
    info->add_input_shape(s->mel_bands);
    info->set_seq_len(m.input.size);
  } else {
    info->add_input_shape(m.input.channels);
    info->add_input_shape(m.input.size);
    info->add_input_shape(m.input.size);
  }
  info->set_num_classes(m.input.classes);
  info->set_dataset_format(DatasetFormatName(d.format));
  info->set_dataset_path(dataset_path_);
  info->set_dataset_samples(d.Split(shape_.train).samples);
  info->set_dataset_bytes(static_cast<int64_t>(d.Split(shape_.train).storage_bytes));
  info->set_reads_per_sample(!d.LoadedAtStart());
  info->mutable_storage()->set_device("simulated");
  info->mutable_storage()->set_fs_type("simulated");
  info->mutable_storage()->set_kind("non-rotational");  // eMMC, microSD
  info->set_preloaded(shape_.preload);
  info->set_page_cache(shape_.drop_page_cache ? v1::PAGE_CACHE_DROP
                                              : v1::PAGE_CACHE_KEEP);
  info->set_compute_device(p.device());
  p.set_kernel(id.kernel());
  p.set_host(id.hostname());
  return p;
}

ExitStatus TwinRuntime::Wait() {
  ExitStatus exit;
  exit.timeout_s = spec_.timeout_s;
  if (sim_ == nullptr) return exit;
  v1::WorkloadEvent started;
  *started.mutable_started() = Provenance(threads_);
  callback_(started);

  const int64_t step_ns = SecondsToNanos(options_.max_sleep_s);
  TwinEvent event;
  bool cancelled = false;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (cancelled_) {
        cancelled = true;
        exit.cancelled = true;
        exit.cancel_reason = cancel_reason_;
      }
    }
    if (cancelled || !sim_->Next(&event)) break;
    // Pace: wait until the event's simulated time, scaled, has passed.
    const int64_t due_ns =
        start_ns_ + SecondsToNanos(event.t_s * options_.time_scale);
    bool stop = false;
    for (int64_t now = clock_->MonotonicNanos(); now < due_ns;
         now = clock_->MonotonicNanos()) {
      {
        absl::MutexLock lock(&mu_);
        stop = cancelled_;
      }
      if (stop) break;
      clock_->SleepFor(absl::Nanoseconds(std::min(due_ns - now, step_ns)));
    }
    if (stop) continue;  // reported at the top of the loop
    v1::WorkloadEvent out;
    switch (event.kind) {
      case TwinEvent::kSample:
        platform_->SetLoad(event.load);
        if (on_sample_) on_sample_(event.sample);
        break;
      case TwinEvent::kMinibatch:
        *out.mutable_minibatch() = event.record;
        callback_(out);
        break;
      case TwinEvent::kFinished:
        *out.mutable_finished() = event.finished;
        callback_(out);
        break;
    }
  }
  platform_->SetLoad(platform_->perf().IdleLoad(platform_->Current()));
  exit.timed_out = !cancelled && sim_->timed_out();
  exit.simulated_time = true;
  exit.wall_s = static_cast<double>(clock_->MonotonicNanos() - start_ns_) * 1e-9;
  exit.cpu_s = sim_->cpu_s();
  exit.max_rss_bytes = kTwinWorkloadRssBytes;
  duration_s_ = sim_->now_s();
  energy_j_ = sim_->energy_j();
  platform_->SetCachedFraction(cache_key_, CachedAfterRun());
  return exit;
}

void TwinRuntime::Cancel(const std::string& reason) {
  absl::MutexLock lock(&mu_);
  if (cancelled_) return;
  cancelled_ = true;
  cancel_reason_ = reason;
}

double TwinRuntime::SimulatedDurationS() const { return duration_s_; }
double TwinRuntime::EnergyJ() const { return energy_j_; }

}  // namespace powersweep
