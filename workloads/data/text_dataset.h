// TextDataset: one split of a tokenised text set as a Dataset (format
// "text"), and the writers of the format (used by gen-dataset).
//
// The format, a directory holding:
//   vocab.txt     the vocabulary, one token per line ('\n' ends every
//                 line); token id = 0-based line number. The first four
//                 lines are the special tokens <pad>, <unk>, <eos>, <mask>
//                 (ids 0-3: padding, out-of-vocabulary words, end of a
//                 sentence or gloss, mobilebert's masked-LM mask). A token
//                 is non-empty, holds no whitespace and appears once; at
//                 most 2^24 tokens (ids must be exact in a float).
//   train.tokens  the training split: the 8 bytes "PSTOKENS", a
//   test.tokens   little-endian uint64 token count, then that many
//                 little-endian uint32 token ids, each below the vocabulary
//                 size. Sentences/glosses are separated by <eos>.
// Either split may be missing; opening it is then kNotFound.
//
// Samples are windows of the split's token stream: sample i is the
// `sample_tokens` tokens starting at token i * seq_len, so consecutive
// windows overlap by sample_tokens - seq_len tokens (lstm_lm reads seq_len
// + 1: input the first seq_len, target the last seq_len, so every token but
// the first is predicted once per epoch, as PyTorch's word_language_model
// batches its corpus). size() = (count - sample_tokens) / seq_len + 1.
// Load writes the ids as floats, shape (1, 1, sample_tokens); label() is 0
// and num_classes() the vocabulary size. The whole split is read into
// memory at open (reads_files_per_sample() is false); no augmentation.
//
// Errors name the file and the reason: kNotFound (vocab.txt or the split's
// .tokens file missing), kDataLoss (a vocabulary without the special
// tokens, an empty or duplicate token or whitespace in one, a missing final
// newline, too many tokens; a .tokens file with a bad magic, a size that
// disagrees with its count -- truncated or trailing bytes --, or an id
// beyond the vocabulary, naming its position), kFailedPrecondition (fewer
// tokens than one sample), kInvalidArgument (bad seq_len / sample_tokens).
// Immutable after opening; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_TEXT_DATASET_H_
#define POWERSWEEP_WORKLOADS_DATA_TEXT_DATASET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

inline constexpr char kTextVocabFile[] = "vocab.txt";
inline constexpr char kTextTokensMagic[] = "PSTOKENS";  // 8 bytes
inline constexpr int64_t kTextHeaderBytes = 16;
inline constexpr char kTextPad[] = "<pad>";
inline constexpr char kTextUnk[] = "<unk>";
inline constexpr char kTextEos[] = "<eos>";
inline constexpr char kTextMask[] = "<mask>";
inline constexpr uint32_t kTextUnkId = 1;
inline constexpr uint32_t kTextEosId = 2;
inline constexpr int64_t kTextSpecialTokens = 4;
inline constexpr int64_t kTextMaxVocab = int64_t{1} << 24;

// "train.tokens" or "test.tokens".
std::string TextTokensFile(Split split);

// True when `dir` holds vocab.txt and either split's .tokens file.
bool LooksLikeTextDataset(const std::string& dir);

// The vocabulary of vocab.txt at `path`, checked as above.
absl::StatusOr<std::vector<std::string>> ReadTextVocabulary(
    const std::string& path);

// The ids of a .tokens file, checked against `vocab_size`.
absl::StatusOr<std::vector<uint32_t>> ReadTextTokens(const std::string& path,
                                                     int64_t vocab_size);

// Writers: vocab.txt (the tokens must satisfy the rules above; the special
// tokens are not added) and a .tokens file.
absl::Status WriteTextVocabulary(const std::string& path,
                                 const std::vector<std::string>& vocab);
absl::Status WriteTextTokens(const std::string& path,
                             const std::vector<uint32_t>& ids);

// options.seq_len (0 = 35) and options.sample_tokens (0 = seq_len + 1,
// at least seq_len) choose the windows; options.split the file.
absl::StatusOr<std::unique_ptr<Dataset>> OpenTextDataset(
    const std::string& dir, const DatasetOptions& options);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_TEXT_DATASET_H_
