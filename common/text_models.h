// The sequence models powersweep runs (they take token ids, not images)
// and the limits on their two options, shared by the workload binary
// (workloads/models/catalog.cc), the controller's sweep validation
// (controller/sweep/validate.cc) and the twin (agent/platform/twin), so a
// sequence length or vocabulary that does not fit is rejected at submit
// with the same bounds the workload applies.
//
//   model       default seq_len  max seq_len  default vocab   sample tokens
//   lstm_lm     35               4096         33,278          seq_len + 1
//   memnet      8                64           23              51 x seq_len
//   mobilebert  128              512          30,522          seq_len
//   seq2seq     30               1024         40,000          seq_len
//   seq2seq_lstm  (as seq2seq: the same network with LSTM cells)
//
// seq_len: tokens the model reads per sample (lstm_lm: the BPTT length of
// PyTorch's word_language_model example, default 35; mobilebert: at most its
// 512 position embeddings). vocab: tokens of the embedding and the output
// layer; the defaults are WikiText-2's vocabulary (33,278, the example's
// corpus) and BERT's uncased WordPiece vocabulary (30,522). A run takes the
// vocabulary of its data set unless told otherwise. Token ids travel through
// the loader as floats, exact below 2^24, hence the vocabulary's upper bound;
// the lower bound is the four special tokens every text set starts with
// (<pad>, <unk>, <eos>, <mask>; workloads/data/text_dataset.h).
// lstm_lm's samples carry one token more than it reads: the input is the
// first seq_len tokens and the target the last seq_len (next-token
// prediction). seq2seq reads a window of seq_len tokens and predicts it
// reversed (workloads/models/seq2seq.h; default: 30 tokens, a sentence's
// length within the source buckets of 5 to 40 tokens of TensorFlow's
// translate example, and that example's 40,000-token vocabulary). memnet's seq_len is the words per sentence: a sample
// is its 50 memory sentences and the question, seq_len words each (bAbI
// sets, workloads/data/babi_dataset.h); its default vocabulary is that of
// the world gen-dataset --format babi simulates (19 words and the 4
// special tokens), its default of 8 words fits that world's longest
// sentence (6 words); memnet runs on bAbI sets and `synthetic` only.
#ifndef POWERSWEEP_COMMON_TEXT_MODELS_H_
#define POWERSWEEP_COMMON_TEXT_MODELS_H_

#include <cstdint>
#include <string_view>

namespace powersweep {

struct TextModelLimits {
  const char* name;
  int64_t default_seq_len;
  int64_t max_seq_len;
  int64_t default_vocab;
  int64_t extra_sample_tokens;  // tokens per sample = seq_len x rows + this
  int64_t sample_rows = 1;      // memnet: 50 memory sentences + the question

  constexpr int64_t SampleTokens(int64_t seq_len) const {
    return seq_len * sample_rows + extra_sample_tokens;
  }
};

inline constexpr int64_t kMinTextVocab = 4;            // the special tokens
inline constexpr int64_t kMaxTextVocab = 1 << 24;      // exact in a float
inline constexpr int64_t kMinTextSeqLen = 1;

inline constexpr TextModelLimits kTextModels[] = {
    {"lstm_lm", 35, 4096, 33278, 1},
    {"memnet", 8, 64, 23, 0, 51},
    {"mobilebert", 128, 512, 30522, 0},
    {"seq2seq", 30, 1024, 40000, 0},
    {"seq2seq_lstm", 30, 1024, 40000, 0},
};

// The limits of `model`, or nullptr when it is not a sequence model.
constexpr const TextModelLimits* FindTextModel(std::string_view model) {
  for (const TextModelLimits& m : kTextModels) {
    if (model == m.name) return &m;
  }
  return nullptr;
}

// Whether `model` takes token sequences: the models above, and gpt2_small,
// whose limits are its own (workloads/models/catalog.cc: a fixed vocabulary
// of 50,257, --gen-tokens, a context of 1024). A sweep's seq_len and vocab
// reach the models of kTextModels only; gpt2_small runs at its defaults there, and
// no sequence model takes input_size.
constexpr bool IsSequenceModel(std::string_view model) {
  return FindTextModel(model) != nullptr || model == "gpt2_small";
}

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_TEXT_MODELS_H_
