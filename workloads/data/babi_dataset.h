// BabiDataset: one split of a bAbI question-answering set (Weston et al.
// 2015, "Towards AI-Complete Question Answering") as a Dataset (format
// "babi"), for memnet (workloads/models/memnet.h).
//
// The format is the bAbI tasks' own text files, a directory holding
// qa<N>_<name>_train.txt and qa<N>_<name>_test.txt (e.g.
// qa1_single-supporting-fact_train.txt; several tasks are read together,
// files in name order). Every line is "<id> <text>"; id 1 starts a story,
// and each later line of a story has the previous line's id + 1. A
// statement's text is a sentence ("Mary moved to the bathroom."); a
// question line's text is the question, a tab, the answer and a tab, then
// the ids of the supporting statements, space-separated:
//   1 Mary moved to the bathroom.
//   2 John went to the hallway.
//   3 Where is Mary? \tbathroom\t1
// Words are the text lower-cased and split at spaces, '.', '?' and ','
// dropped from their ends; an answer ("bathroom", or "apple,football" in
// the tasks with several) is one token of the vocabulary.
//
// The vocabulary is built at open from every file of both splits, so the
// two splits give the same ids: the special tokens <pad>, <unk>, <eos>,
// <mask> (ids 0-3, as text sets, text_dataset.h), then every word and
// answer in sorted order. A sample is one question: its story's statements
// before it (questions excluded), the most recent in memory slot 0, at
// most `memory` of them (older ones dropped), each padded with <pad> to
// seq_len words; then the question padded to seq_len. Load writes those
// (memory + 1) x seq_len ids as floats, shape (1, 1, (memory + 1) x
// seq_len); label(i) is the answer's id and num_classes() the vocabulary
// size. The split is read into memory at open; no augmentation.
//
// DatasetOptions: seq_len = words per sentence (0 = 8), sample_tokens =
// (memory + 1) x seq_len (0 = 51 x seq_len: memnet's memory of 50).
//
// Errors name the file and the reason: kNotFound (no qa*_<split>.txt),
// kDataLoss naming the line (no id, an id that does not follow the
// previous one, a question without an answer or with a supporting id that
// is not an earlier statement of its story, an empty sentence),
// kFailedPrecondition (a sentence or question longer than seq_len words,
// naming file, line and both counts; a split without questions),
// kInvalidArgument (seq_len / sample_tokens that do not fit).
// Immutable after opening; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_BABI_DATASET_H_
#define POWERSWEEP_WORKLOADS_DATA_BABI_DATASET_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

inline constexpr int64_t kBabiDefaultWords = 8;
inline constexpr int64_t kBabiDefaultMemory = 50;

// The split's files in `dir` (qa*_train.txt or qa*_test.txt), sorted.
std::vector<std::string> BabiFiles(const std::string& dir, Split split);

// True when `dir` holds a qa*_train.txt or qa*_test.txt file.
bool LooksLikeBabiDataset(const std::string& dir);

absl::StatusOr<std::unique_ptr<Dataset>> OpenBabiDataset(
    const std::string& dir, const DatasetOptions& options);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_BABI_DATASET_H_
