// FramesDataset: one split of a frames data set (frames_format.h), the
// replay memory dqn trains on, as a Dataset: format "frames", the whole
// split file read into memory by OpenFramesDataset.
//
// A sample is the record's stack + 1 frames as channels (5x84x84 for the
// generated sets), pixels scaled to 0..1 (v / 255, as the Nature DQN
// feeds its frames; no mean/std normalisation, no augmentation). Its label
// is the transition code EncodeTransition(action, reward, done), so
// num_classes() is 6 x actions and model_outputs() is the action count.
//
// Errors name the file: kNotFound when DIR/<split>.frames is missing,
// kDataLoss for a bad header or size (ParseFramesHeader) or a record whose
// action, reward or done flag is out of range (naming the record),
// kInvalidArgument when options.image_size is neither 0 nor the frames'
// square size. Immutable after opening; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_FRAMES_DATASET_H_
#define POWERSWEEP_WORKLOADS_DATA_FRAMES_DATASET_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

// True when `dir` holds train.frames or test.frames.
bool LooksLikeFramesDataset(const std::string& dir);

absl::StatusOr<std::unique_ptr<Dataset>> OpenFramesDataset(
    const std::string& dir, const DatasetOptions& options);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_FRAMES_DATASET_H_
