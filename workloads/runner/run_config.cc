#include "workloads/runner/run_config.h"

#include <fcntl.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"
#include "common/kernel_names.h"
#include "common/kernel_shape.h"
#include "common/speech_models.h"
#include "common/synthetic_dataset.h"
#include "common/text_models.h"
#include "workloads/models/catalog.h"

namespace powersweep {
namespace {

absl::Status Bad(absl::string_view flag, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", reason));
}

}  // namespace

absl::StatusOr<v1::Task> ParseTask(absl::string_view task) {
  if (std::optional<v1::Task> t = ParseWorkloadTask(task)) return *t;
  return Bad("task", absl::StrCat("'", task, "' is not train or infer"));
}

absl::StatusOr<v1::PageCache> ParsePageCache(absl::string_view text) {
  if (text == "keep") return v1::PAGE_CACHE_KEEP;
  if (text == "drop") return v1::PAGE_CACHE_DROP;
  return Bad("page-cache", absl::StrCat("'", text, "' is not keep or drop"));
}

namespace {

// The flags of a kernel run (model a kernel name).
absl::Status ValidateKernelFlags(const RunConfig& c) {
  if (c.kernel_shape.empty()) {
    return Bad("kernel-shape",
               absl::StrCat("required for kernel ", c.model,
                            " (a table row like deepbench-train-1 or an "
                            "explicit shape; see --help)"));
  }
  absl::StatusOr<KernelShape> shape = ParseKernelShape(c.model, c.kernel_shape);
  if (!shape.ok()) return Bad("kernel-shape", shape.status().message());
  if (!c.dataset_path.empty()) {
    return Bad("dataset-path", "a kernel run reads no data set");
  }
  if (c.epochs != 0) {
    return Bad("epochs",
               "a kernel run has no data set, so no epochs; use "
               "--minibatches (timed iterations) or --duration-s");
  }
  if (c.preload) return Bad("preload", "a kernel run reads no data set");
  if (c.warmup_iterations < 1 || c.warmup_iterations > 100000) {
    return Bad("warmup-iterations", absl::StrCat("must be within 1..100000, got ",
                                                 c.warmup_iterations));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateRunConfig(const RunConfig& c) {
  if (c.warmup_minibatches < -1 || c.warmup_minibatches > 1000000) {
    return Bad("warmup-minibatches",
               absl::StrCat("must be -1 (none), 0 (the default) or a count "
                            "up to 1000000, got ",
                            c.warmup_minibatches));
  }
  if (IsKernelName(c.model)) {
    if (c.warmup_minibatches != 0) {
      return Bad("warmup-minibatches",
                 "a kernel run times iterations after --warmup-iterations "
                 "untimed ones");
    }
    absl::Status st = ValidateKernelFlags(c);
    if (!st.ok()) return st;
  } else if (!c.kernel_shape.empty()) {
    return Bad("kernel-shape", absl::StrCat("applies to kernels (",
                                            absl::StrJoin(kKernelNames, ", "),
                                            "), not model ", c.model));
  } else if (CanonicalModelName(c.model).empty()) {
    const std::vector<std::string> models = KnownModels();
    return Bad("model", absl::StrCat("unknown model '", c.model, "' (known: ",
                                     absl::StrJoin(models, ", "), "; kernels: ",
                                     absl::StrJoin(kKernelNames, ", "), ")"));
  }
  if (c.dataset_path.empty() && !IsKernelName(c.model)) {
    return Bad("dataset-path",
               "required (a directory of IDX files, CIFAR-10 batches, image "
               "folders or token files, or `synthetic`)");
  }
  if (IsSyntheticDataset(c.dataset_path) && c.epochs > 0) {
    return Bad("epochs",
               "synthetic data has no epochs (one random minibatch is reused); "
               "stop with --minibatches or --duration-s");
  }
  if (c.task != v1::TASK_TRAIN && c.task != v1::TASK_INFER) {
    return Bad("task", "must be train or infer");
  }
  if (c.batch_size < 1) {
    return Bad("batch-size",
               absl::StrCat("must be at least 1, got ", c.batch_size));
  }
  if (c.workers < 0 || c.workers > 256) {
    return Bad("workers",
               absl::StrCat("must be within 0..256, got ", c.workers));
  }
  if (c.epochs < 0) {
    return Bad("epochs", absl::StrCat("must be >= 0, got ", c.epochs));
  }
  if (c.minibatches < 0) {
    return Bad("minibatches",
               absl::StrCat("must be >= 0, got ", c.minibatches));
  }
  if (!std::isfinite(c.duration_s) || c.duration_s < 0) {
    return Bad("duration-s", absl::StrCat("must be a finite number >= 0, got ",
                                          c.duration_s));
  }
  if (c.epochs == 0 && c.minibatches == 0 && c.duration_s == 0) {
    return Bad("epochs",
               "no stop condition: give at least one of --epochs, "
               "--minibatches, --duration-s greater than 0");
  }
  if (c.threads < 0 || c.threads > 1024) {
    return Bad("threads",
               absl::StrCat("must be within 0..1024, got ", c.threads));
  }
  if (c.prefetch_depth < 0 || c.prefetch_depth > 1024) {
    return Bad("prefetch-depth", absl::StrCat("must be within 0..1024, got ",
                                              c.prefetch_depth));
  }
  if (c.input_size != 0 && (c.input_size < 28 || c.input_size > 1024)) {
    return Bad("input-size",
               absl::StrCat("must be 0 (the model's default) or within "
                            "28..1024, got ",
                            c.input_size));
  }
  if (const TextModelLimits* t = FindTextModel(CanonicalModelName(c.model))) {
    if (c.seq_len < 0 || c.seq_len > t->max_seq_len) {
      return Bad("seq-len",
                 absl::StrCat("must be 0 (", c.model, "'s default of ",
                              t->default_seq_len, ") or within 1..",
                              t->max_seq_len, " for ", c.model, ", got ",
                              c.seq_len));
    }
    if (c.vocab != 0 && (c.vocab < kMinTextVocab || c.vocab > kMaxTextVocab)) {
      return Bad("vocab", absl::StrCat("must be 0 (the data set's) or within ",
                                       kMinTextVocab, "..", kMaxTextVocab,
                                       ", got ", c.vocab));
    }
    if (c.gen_tokens != 0) {
      return Bad("gen-tokens", absl::StrCat(c.model, " does not generate "
                                            "tokens (gpt2_small does)"));
    }
  } else if (const SpeechModelLimits* s =
                 FindSpeechModel(CanonicalModelName(c.model))) {
    if (c.seq_len != 0 &&
        (c.seq_len < s->min_frames || c.seq_len > s->max_frames)) {
      return Bad("seq-len",
                 absl::StrCat("must be 0 (", c.model, "'s default of ",
                              s->default_frames, " frames) or within ",
                              s->min_frames, "..", s->max_frames,
                              " spectrogram frames for ", c.model, ", got ",
                              c.seq_len));
    }
    if (c.vocab != 0 || c.gen_tokens != 0) {
      return Bad(c.vocab != 0 ? "vocab" : "gen-tokens",
                 absl::StrCat(c.model, " takes spectrograms, not token "
                                       "sequences"));
    }
  } else if (CanonicalModelName(c.model) == "gpt2_small") {
    // --seq-len, --gen-tokens and --vocab (fixed): the model's own checks.
    ModelOptions sequence;
    sequence.seq_len = c.seq_len;
    sequence.vocab = c.vocab;
    sequence.gen_tokens = c.gen_tokens;
    absl::StatusOr<ResolvedModel> r = ResolveModelOptions(c.model, sequence);
    if (!r.ok()) return r.status();
  } else if (c.seq_len != 0 || c.vocab != 0 || c.gen_tokens != 0) {
    return Bad(c.seq_len != 0 ? "seq-len"
               : c.vocab != 0 ? "vocab"
                              : "gen-tokens",
               IsKernelName(c.model)
                   ? absl::StrCat("kernel ", c.model,
                                  " takes its shape from --kernel-shape")
                   : absl::StrCat(c.model,
                                  " takes images, not token sequences"));
  }
  if (c.preload && c.task != v1::TASK_INFER) {
    return Bad("preload", "applies to --task infer only");
  }
  if (c.preload_limit < 0) {
    return Bad("preload-limit",
               absl::StrCat("must be >= 0, got ", c.preload_limit));
  }
  if (c.records_fd < 0 || fcntl(c.records_fd, F_GETFD) == -1) {
    return Bad("records-fd",
               absl::StrCat(c.records_fd, " is not an open file descriptor"));
  }
  return absl::OkStatus();
}

}  // namespace powersweep
