#include "workloads/runner/runner.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "common/log.h"
#include "workloads/data/idx_reader.h"
#include "workloads/models/model.h"
#include "workloads/pipeline/loader.h"
#include "workloads/runner/environment.h"
#include "workloads/runner/minibatch_timer.h"
#include "workloads/runner/step.h"
#include "workloads/runner/stop_condition.h"
#include "workloads/torch_status.h"

namespace powersweep {
namespace {

absl::Status CheckInputShape(const ImageDataset& data, const Model& model,
                             const std::string& model_name) {
  auto shape = model.input_shape();
  if (shape[0] != 1 || shape[1] != data.rows || shape[2] != data.cols) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: images are 1x%dx%d but model %s takes %dx%dx%d", data.images_path,
        data.rows, data.cols, model_name, shape[0], shape[1], shape[2]));
  }
  return absl::OkStatus();
}

// The timed loop: minibatches until the stop condition says so.
absl::StatusOr<v1::WorkloadFinished> RunLoop(const RunConfig& config,
                                             Clock* clock, RecordSink* sink,
                                             Loader& loader, Step& step) {
  const StopCondition stop(config.epochs, config.minibatches,
                           config.duration_s);
  MinibatchTimer timer;
  timer.Start(clock->MonotonicNanos());
  int64_t done = 0;
  std::string reason;
  while (reason.empty()) {
    timer.BeginFetch(clock->MonotonicNanos());
    absl::StatusOr<Minibatch> mb = loader.Next();
    if (!mb.ok()) return mb.status();
    timer.EndFetch(clock->MonotonicNanos());
    const double loss = step.Run(*mb);
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
    r->set_samples(static_cast<int32_t>(mb->samples));
    r->set_loss(loss);
    absl::Status written = sink->Write(event);
    if (!written.ok()) return written;
    ++done;
    reason = stop.Check(done, done / loader.batches_per_epoch(),
                        timer.ElapsedSeconds(clock->MonotonicNanos()));
  }
  v1::WorkloadFinished finished;
  finished.set_minibatches(done);
  finished.set_epochs_completed(
      static_cast<int32_t>(done / loader.batches_per_epoch()));
  finished.set_elapsed_s(timer.ElapsedSeconds(clock->MonotonicNanos()));
  finished.set_stop_reason(reason);
  return finished;
}

absl::StatusOr<v1::WorkloadFinished> RunUnchecked(const RunConfig& config,
                                                  Clock* clock,
                                                  RecordSink* sink) {
  const int threads = ResolveThreadCount(config.threads);
  torch::set_num_threads(threads);
  torch::manual_seed(config.seed);

  v1::WorkloadEvent started;
  *started.mutable_started() = CollectProvenance(threads);
  absl::Status st = sink->Write(started);
  if (!st.ok()) return st;

  absl::StatusOr<std::shared_ptr<Model>> model = MakeModel(config.model);
  if (!model.ok()) return model.status();
  const bool train = config.task == v1::TASK_TRAIN;
  absl::StatusOr<ImageDataset> data =
      LoadIdxDataset(config.dataset_path, train ? "train" : "test");
  if (!data.ok()) return data.status();
  st = CheckInputShape(*data, **model, config.model);
  if (!st.ok()) return st;
  if (config.batch_size > data->count) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--batch-size: %d exceeds the %d samples of %s",
                        config.batch_size, data->count, data->images_path));
  }

  LoaderOptions options;
  options.batch_size = config.batch_size;
  options.workers = config.workers;
  options.seed = config.seed;
  options.shuffle = train;
  absl::StatusOr<std::unique_ptr<Loader>> loader =
      Loader::Create(&*data, options);
  if (!loader.ok()) return loader.status();
  std::unique_ptr<Step> step = MakeStep(config.task, *std::move(model));

  PS_LOG(INFO) << absl::StrFormat(
      "%s %s on %s: %d samples, %d minibatches of %d per epoch, %d loader "
      "workers, %d threads, seed %d",
      config.model, train ? "train" : "infer", data->images_path, data->count,
      (*loader)->batches_per_epoch(), config.batch_size, config.workers,
      threads, config.seed);
  absl::StatusOr<v1::WorkloadFinished> finished =
      RunLoop(config, clock, sink, **loader, *step);
  loader->reset();  // stop and join the workers before anything else
  if (!finished.ok()) return finished.status();

  v1::WorkloadEvent event;
  *event.mutable_finished() = *finished;
  st = sink->Write(event);
  if (!st.ok()) return st;
  const double secs = finished->elapsed_s();
  PS_LOG(INFO) << absl::StrFormat(
      "finished: %d minibatches, %d epochs, %.3f s (stop: %s), %.0f samples/s",
      finished->minibatches(), finished->epochs_completed(), secs,
      finished->stop_reason(),
      secs > 0 ? finished->minibatches() * config.batch_size / secs : 0.0);
  return finished;
}

}  // namespace

absl::StatusOr<v1::WorkloadFinished> RunWorkload(const RunConfig& config,
                                                 Clock* clock,
                                                 RecordSink* sink) {
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
