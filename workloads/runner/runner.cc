#include "workloads/runner/runner.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include <torch/cuda.h>
#include "common/kernel_names.h"
#include "common/log.h"
#include "common/speech_models.h"
#include "common/synthetic_dataset.h"
#include "workloads/data/dataset.h"
#include "workloads/kernels/kernel_runner.h"
#include "workloads/models/model.h"
#include "workloads/pipeline/loader.h"
#include "workloads/runner/environment.h"
#include "workloads/runner/epoch_page_cache.h"
#include "workloads/runner/minibatch_source.h"
#include "workloads/runner/minibatch_timer.h"
#include "workloads/runner/step.h"
#include "workloads/runner/stop_condition.h"
#include "workloads/runner/synthetic_source.h"
#include "workloads/runner/workload_info.h"
#include "workloads/torch_status.h"

namespace powersweep {
namespace {

absl::Status CheckChannels(const Dataset& data, const Model& model) {
  const SampleShape s = data.shape();
  const auto want = model.input_shape();
  if (s.channels != want[0] || s.height != want[1] || s.width != want[2]) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: samples are %dx%dx%d (%s) but model %s takes %dx%dx%d",
        data.path(), s.channels, s.height, s.width, data.format(),
        model.model_name(), want[0], want[1], want[2]));
  }
  return absl::OkStatus();
}

// Minibatches flagged as warm-up (RunConfig.warmup_minibatches).
int64_t WarmupCount(const RunConfig& config, bool cuda) {
  if (config.warmup_minibatches < 0) return 0;
  if (config.warmup_minibatches > 0) return config.warmup_minibatches;
  return cuda ? kDefaultCudaWarmup : 0;
}

// A CUDA run's copy of `mb` to `device`: from pinned memory (the loader's
// or the synthetic batch's; pinned here otherwise), asynchronous, then
// waited for, so the copy is timed apart from compute.
Minibatch CopyToDevice(const Minibatch& mb, const torch::Device& device) {
  Minibatch out = mb;
  auto copy = [&](const torch::Tensor& t) {
    const torch::Tensor pinned = t.is_pinned() ? t : t.pin_memory();
    return pinned.to(device, /*non_blocking=*/true);
  };
  out.images = copy(mb.images);
  out.labels = copy(mb.labels);
  torch::cuda::synchronize();
  return out;
}

// The timed loop: minibatches until the stop condition says so. Adds the
// minibatches' tokens (sequence models) to *tokens. On a CUDA device each
// minibatch's copy is its own span (MinibatchRecord.h2d_s).
absl::StatusOr<v1::WorkloadFinished> RunLoop(const RunConfig& config,
                                             Clock* clock, RecordSink* sink,
                                             MinibatchSource& source,
                                             EpochPageCache* cache,
                                             Step& step,
                                             const torch::Device& device,
                                             int64_t* tokens) {
  const StopCondition stop(config.epochs, config.minibatches,
                           config.duration_s);
  const bool cuda = device.is_cuda();
  const int64_t warmup = WarmupCount(config, cuda);
  MinibatchTimer timer;
  timer.Start(clock->MonotonicNanos());
  int64_t done = 0;
  std::string reason;
  while (reason.empty()) {
    timer.BeginFetch(clock->MonotonicNanos());
    absl::StatusOr<Minibatch> mb = source.Next();
    if (!mb.ok()) return mb.status();
    timer.EndFetch(clock->MonotonicNanos());
    if (cuda) {
      absl::Status copied = CatchTorchErrors(
          absl::StrFormat("copying minibatch %d to %s", mb->index,
                          device.str()),
          [&] {
            *mb = CopyToDevice(*mb, device);
            return absl::OkStatus();
          });
      if (!copied.ok()) return copied;
      timer.EndCopy(clock->MonotonicNanos());
    }
    const StepResult result = step.Run(*mb);
    const double loss = result.loss;
    const MinibatchTiming t = timer.EndCompute(clock->MonotonicNanos());
    if (!std::isfinite(loss)) {
      return absl::InternalError(absl::StrFormat(
          "loss is %f at minibatch %d: training diverged", loss, mb->index));
    }
    v1::WorkloadEvent event;
    v1::MinibatchRecord* r = event.mutable_minibatch();
    r->set_epoch(static_cast<int32_t>(mb->epoch));
    r->set_index(mb->index);
    r->set_t_start_s(t.t_start_s);
    r->set_stall_s(t.stall_s);
    r->set_compute_s(t.compute_s);
    r->set_e2e_s(t.e2e_s);
    r->set_h2d_s(t.h2d_s);
    if (done < warmup) r->set_warmup(true);
    r->set_samples(static_cast<int32_t>(mb->samples));
    r->set_loss(loss);
    r->set_tokens(result.tokens);
    *tokens += result.tokens;
    if (result.ttft_s.has_value()) r->set_ttft_s(*result.ttft_s);
    if (result.per_token_s.has_value()) r->set_per_token_s(*result.per_token_s);
    if (cache != nullptr && mb->index % source.batches_per_epoch() == 0) {
      std::optional<double> resident = cache->TakeResidency(mb->epoch);
      if (resident.has_value()) r->set_page_cache_resident(*resident);
    }
    absl::Status written = sink->Write(event);
    if (!written.ok()) return written;
    ++done;
    reason = stop.Check(done, done / source.batches_per_epoch(),
                        timer.ElapsedSeconds(clock->MonotonicNanos()));
  }
  v1::WorkloadFinished finished;
  finished.set_minibatches(done);
  finished.set_epochs_completed(
      static_cast<int32_t>(done / source.batches_per_epoch()));
  finished.set_elapsed_s(timer.ElapsedSeconds(clock->MonotonicNanos()));
  finished.set_stop_reason(reason);
  return finished;
}

// How many minibatches --preload builds: --preload-limit, else the run's
// minibatch count, else one epoch.
int64_t PreloadCount(const RunConfig& config, int64_t batches_per_epoch) {
  int64_t n = config.minibatches > 0 ? config.minibatches : batches_per_epoch;
  if (config.preload_limit > 0) n = std::min(n, config.preload_limit);
  return std::max<int64_t>(1, n);
}

// CUDA when this LibTorch has it and a device answers, else the CPU.
torch::Device ComputeDevice() {
  if (torch::cuda::is_available()) return torch::Device(torch::kCUDA, 0);
  return torch::Device(torch::kCPU);
}

// Writes the `started` event, runs the timed loop over `source` and writes
// the `finished` event. `model` is on `device` already; `cache` (may be
// null) must outlive `source`.
absl::StatusOr<v1::WorkloadFinished> RunTimed(
    const RunConfig& config, Clock* clock, RecordSink* sink, int threads,
    std::shared_ptr<Model> model, const torch::Device& device,
    const v1::WorkloadInfo& info, std::unique_ptr<MinibatchSource> source,
    EpochPageCache* cache) {
  v1::WorkloadEvent started;
  *started.mutable_started() = CollectProvenance(threads);
  started.mutable_started()->set_device(device.str());
  if (device.is_cuda()) {
    at::globalContext().setBenchmarkCuDNN(config.cudnn_benchmark);
    FillCudaProvenance(config.cudnn_benchmark,
                       started.mutable_started()->mutable_gpu());
  }
  *started.mutable_started()->mutable_workload() = info;
  absl::Status st = sink->Write(started);
  if (!st.ok()) return st;
  std::unique_ptr<Step> step =
      MakeStep(config.task, std::move(model), device, clock);
  int64_t tokens = 0;
  absl::StatusOr<v1::WorkloadFinished> finished =
      RunLoop(config, clock, sink, *source, cache, *step, device, &tokens);
  source.reset();  // stop and join the loader's workers before anything else
  if (!finished.ok()) return finished.status();
  v1::WorkloadEvent event;
  *event.mutable_finished() = *finished;
  st = sink->Write(event);
  if (!st.ok()) return st;
  const double secs = finished->elapsed_s();
  const double samples_per_s =
      secs > 0 ? finished->minibatches() * config.batch_size / secs : 0.0;
  PS_LOG(INFO) << absl::StrFormat(
      "finished: %d minibatches, %d epochs, %.3f s (stop: %s), %.0f "
      "samples/s%s",
      finished->minibatches(), finished->epochs_completed(), secs,
      finished->stop_reason(), samples_per_s,
      tokens > 0 && secs > 0 ? absl::StrFormat(", %.0f tokens/s", tokens / secs)
                             : "");
  return finished;
}

// The `synthetic` data set: the model at its defaults (or --input-size),
// one random minibatch made before timing and reused (synthetic_source.h).
absl::StatusOr<v1::WorkloadFinished> RunSynthetic(const RunConfig& config,
                                                  Clock* clock,
                                                  RecordSink* sink,
                                                  int threads) {
  ModelOptions model_options;
  model_options.input_size = config.input_size;
  model_options.seq_len = config.seq_len;
  model_options.vocab = config.vocab;
  model_options.gen_tokens = config.gen_tokens;
  model_options.train = config.task == v1::TASK_TRAIN;
  absl::StatusOr<std::shared_ptr<Model>> model =
      MakeModel(config.model, model_options);
  if (!model.ok()) return model.status();
  const torch::Device device = ComputeDevice();
  absl::StatusOr<v1::WorkloadInfo> info =
      CollectSyntheticWorkloadInfo(**model, config, device.str());
  if (!info.ok()) return info.status();
  (*model)->to(device);
  auto source = std::make_unique<SyntheticSource>(**model, config.batch_size);
  if (device.is_cuda()) source->PinMemory();
  PS_LOG(INFO) << absl::StrFormat(
      "%s %s on synthetic data (one random minibatch of %d, %.1f MB, made in "
      "memory and reused; no I/O): %.2fM parameters, %.3f GMACs per sample; "
      "%d threads, device %s, seed %d",
      info->model(), config.task == v1::TASK_TRAIN ? "train" : "infer",
      config.batch_size, source->bytes() / 1e6, info->params() / 1e6,
      info->forward_macs() / 1e9, threads, device.str(), config.seed);
  return RunTimed(config, clock, sink, threads, *std::move(model), device,
                  *info, std::move(source), nullptr);
}

absl::StatusOr<v1::WorkloadFinished> RunUnchecked(const RunConfig& config,
                                                  Clock* clock,
                                                  RecordSink* sink) {
  const int threads = ResolveThreadCount(config.threads);
  torch::set_num_threads(threads);
  torch::manual_seed(config.seed);
  if (IsSyntheticDataset(config.dataset_path)) {
    return RunSynthetic(config, clock, sink, threads);
  }
  const bool train = config.task == v1::TASK_TRAIN;

  DatasetOptions data_options;
  data_options.split = train ? Split::kTrain : Split::kTest;
  data_options.augment = train;
  // --input-size sizes image folders only (0: 224, or the model's larger
  // study default, 299 for inception_v3); CIFAR-10 and IDX samples keep
  // their native size (a sweep's input_size applies to all its runs).
  absl::StatusOr<std::string> format = DetectDatasetFormat(config.dataset_path);
  if (!format.ok()) return format.status();
  if (*format == "image-folder") {
    data_options.image_size = config.input_size != 0
                                  ? config.input_size
                                  : ImageFolderInputSize(config.model);
  }
  // A text set is cut into the windows the sequence model reads; a bAbI
  // set into memnet's stories and questions; a speech set is padded to the
  // speech model's window of frames.
  const bool babi = *format == "babi";
  const bool text = *format == "text" || babi;
  const bool speech = *format == "speech";
  ModelOptions model_options;
  model_options.train = train;
  if (speech) {
    model_options.seq_len = config.seq_len;
    absl::StatusOr<ResolvedModel> shape =
        ResolveModelOptions(config.model, model_options);
    if (!shape.ok() && absl::IsInvalidArgument(shape.status()) &&
        CanonicalModelName(config.model) == "deepspeech2") {
      return shape.status();  // --seq-len out of range
    }
    if (!shape.ok() || FindSpeechModel(shape->name) == nullptr) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: a speech set (log-mel spectrograms with transcripts) does not "
          "fit model %s, which does not take spectrograms (deepspeech2 does)",
          config.dataset_path, config.model));
    }
    data_options.seq_len = shape->seq_len;
  }
  if (text) {
    model_options.seq_len = config.seq_len;
    absl::StatusOr<ResolvedModel> shape =
        ResolveModelOptions(config.model, model_options);
    if (!shape.ok() || !shape->takes_tokens() ||
        FindSpeechModel(shape->name) != nullptr) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: a %s set (token ids) does not fit model %s, which does not "
          "take token sequences",
          config.dataset_path, *format, config.model));
    }
    if (babi != (shape->name == "memnet")) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: a %s set does not fit model %s (bAbI sets are memnet's "
          "stories and questions; memnet reads bAbI sets only)",
          config.dataset_path, *format, config.model));
    }
    data_options.seq_len = shape->seq_len;
    data_options.sample_tokens = shape->input_shape[2];
  }
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      OpenDataset(config.dataset_path, data_options);
  if (!data.ok()) return data.status();
  const Dataset& set = **data;
  if (config.batch_size > set.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--batch-size: %d exceeds the %d samples of %s",
                        config.batch_size, set.size(), set.path()));
  }
  if (text) {
    if (config.vocab != 0 && config.vocab < set.num_classes()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--vocab: %d is smaller than the %d tokens of the vocabulary of %s",
          config.vocab, set.num_classes(), set.path()));
    }
    model_options.vocab =
        config.vocab != 0 ? config.vocab : set.num_classes();
    model_options.gen_tokens = config.gen_tokens;
  } else if (speech) {
    // The window and the alphabet are the model's; the set was opened with
    // that window.
  } else {
    // Image models take their outputs (classes, or dqn's actions) and size
    // from the set.
    model_options.num_classes = set.model_outputs();
    model_options.input_size = set.shape().height;
  }
  absl::StatusOr<std::shared_ptr<Model>> model =
      MakeModel(config.model, model_options);
  if (absl::IsInvalidArgument(model.status())) {
    // The options came from the data set, so say which set did not fit.
    const SampleShape s = set.shape();
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: a %s set of %dx%dx%d samples in %d classes does not fit model "
        "%s (%s)",
        set.path(), set.format(), s.channels, s.height, s.width,
        set.num_classes(), config.model, model.status().message()));
  }
  if (!model.ok()) return model.status();
  absl::Status st = CheckChannels(set, **model);
  if (!st.ok()) return st;

  const torch::Device device = ComputeDevice();
  const std::string device_name = device.str();
  absl::StatusOr<v1::WorkloadInfo> info =
      CollectWorkloadInfo(**model, set, config, device_name);
  if (!info.ok()) return info.status();
  (*model)->to(device);

  EpochPageCache cache(set.files(), config.page_cache);
  LoaderOptions options;
  options.batch_size = config.batch_size;
  options.workers = config.workers;
  options.prefetch_depth = config.prefetch_depth;
  options.seed = config.seed;
  options.shuffle = train;
  options.pin_memory = device.is_cuda();
  options.on_epoch_start = [&cache](int64_t epoch) {
    cache.OnEpochStart(epoch);
  };
  absl::StatusOr<std::unique_ptr<Loader>> loader =
      Loader::Create(&set, options);
  if (!loader.ok()) return loader.status();
  const int64_t per_epoch = (*loader)->batches_per_epoch();

  std::unique_ptr<MinibatchSource> source;
  if (config.preload) {
    const int64_t count = PreloadCount(config, per_epoch);
    absl::StatusOr<std::unique_ptr<PreloadedSource>> pre =
        PreloadedSource::Build(**loader, count);
    loader->reset();  // the workers are not needed any more
    if (!pre.ok()) return pre.status();
    PS_LOG(INFO) << absl::StrFormat(
        "preloaded %d minibatches (%.1f MB) before timing", (*pre)->size(),
        (*pre)->bytes() / 1e6);
    source = *std::move(pre);
  } else {
    source = std::make_unique<LoaderSource>(*std::move(loader));
  }
  PS_LOG(INFO) << absl::StrFormat(
      "%s %s on %s (%s, %d samples, %s %s): %.2fM parameters, %.3f GMACs per "
      "sample; %d minibatches of %d per epoch, %d loader workers, %d "
      "threads, page cache %s%s, device %s, seed %d",
      info->model(), train ? "train" : "infer", set.path(), set.format(),
      set.size(), info->storage().device(), info->storage().kind(),
      info->params() / 1e6, info->forward_macs() / 1e9, per_epoch,
      config.batch_size, config.workers, threads,
      config.page_cache == v1::PAGE_CACHE_DROP ? "dropped per epoch" : "kept",
      config.preload ? ", preloaded" : "", device_name, config.seed);
  return RunTimed(config, clock, sink, threads, *std::move(model), device,
                  *info, std::move(source), config.preload ? nullptr : &cache);
}

}  // namespace

absl::StatusOr<v1::WorkloadFinished> RunWorkload(const RunConfig& config,
                                                 Clock* clock,
                                                 RecordSink* sink) {
  if (IsKernelName(config.model)) return RunKernel(config, clock, sink);
  absl::StatusOr<v1::WorkloadFinished> result =
      absl::UnknownError("workload did not run");
  absl::Status st = CatchTorchErrors("workload", [&] {
    result = RunUnchecked(config, clock, sink);
    return result.status();
  });
  if (!st.ok()) return st;
  return result;
}

}  // namespace powersweep
