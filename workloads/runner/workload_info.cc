#include "workloads/runner/workload_info.h"

#include "common/log.h"
#include "common/synthetic_dataset.h"
#include "workloads/data/storage_medium.h"
#include "workloads/models/describe.h"

namespace powersweep {
namespace {

absl::StatusOr<v1::WorkloadInfo> ModelInfo(Model& model) {
  absl::StatusOr<ModelDescription> d = DescribeBuiltModel(model);
  if (!d.ok()) return d.status();
  v1::WorkloadInfo info;
  info.set_model(d->name);
  info.set_params(d->params);
  info.set_forward_macs(d->forward_macs);
  for (int64_t v : d->input_shape) info.add_input_shape(v);
  info.set_num_classes(static_cast<int32_t>(d->num_classes));
  info.set_seq_len(d->seq_len);
  info.set_vocab(d->vocab);
  return info;
}

}  // namespace

absl::StatusOr<v1::WorkloadInfo> CollectSyntheticWorkloadInfo(
    Model& model, const RunConfig& config, const std::string& compute_device) {
  absl::StatusOr<v1::WorkloadInfo> info = ModelInfo(model);
  if (!info.ok()) return info.status();
  info->set_dataset_format(std::string(kSyntheticDataset));
  info->set_dataset_path(std::string(kSyntheticDataset));
  info->set_dataset_samples(config.batch_size);
  info->set_dataset_bytes(0);
  info->set_reads_per_sample(false);
  info->mutable_storage()->set_kind("memory");
  info->set_preloaded(false);
  info->set_page_cache(v1::PAGE_CACHE_KEEP);
  info->set_compute_device(compute_device);
  return info;
}

absl::StatusOr<v1::WorkloadInfo> CollectWorkloadInfo(
    Model& model, const Dataset& data, const RunConfig& config,
    const std::string& compute_device) {
  absl::StatusOr<v1::WorkloadInfo> built = ModelInfo(model);
  if (!built.ok()) return built.status();
  v1::WorkloadInfo& info = *built;
  info.set_dataset_format(data.format());
  info.set_dataset_path(data.path());
  info.set_dataset_samples(data.size());
  info.set_dataset_bytes(data.bytes_on_disk());
  info.set_reads_per_sample(data.reads_files_per_sample());
  absl::StatusOr<v1::StorageMedium> medium = DescribeStorage(data.path());
  if (medium.ok()) {
    *info.mutable_storage() = *medium;
  } else {
    PS_LOG(WARNING) << "storage medium of " << data.path() << ": "
                    << medium.status().message();
    info.mutable_storage()->set_kind("unknown");
  }
  info.set_preloaded(config.preload);
  info.set_page_cache(config.page_cache);
  info.set_compute_device(compute_device);
  return info;
}

}  // namespace powersweep
