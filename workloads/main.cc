// powersweep-workload: instrumented LibTorch training and inference runs,
// model descriptions and synthetic data sets. See docs/ARCHITECTURE.md
// "Workload command line and records". This file only defines the flags,
// dispatches the command (run, describe, gen-dataset, idle) and maps the
// result to an exit code (0 ok, 2 bad arguments, 1 failed).
#include <signal.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_join.h"
#include "common/clock.h"
#include "common/log.h"
#include "workloads/cli/flag_args.h"
#include "workloads/commands/commands.h"
#include "workloads/runner/heap_policy.h"
#include "workloads/runner/idle.h"
#include "workloads/runner/record_sink.h"
#include "workloads/runner/run_config.h"
#include "workloads/runner/runner.h"

ABSL_FLAG(std::string, model, "lenet5",
          "run, describe: the model (alexnet, dqn, gpt2_small, inception_v3, "
          "lenet5, lstm_lm, memnet, mobilebert, mobilenetv3, resnet18, "
          "resnet50, seq2seq, seq2seq_lstm, squeezenet1_1, vae, vgg11, "
          "vgg19); "
          "run: or a kernel (gemm, conv, rnn) with --kernel-shape.");
ABSL_FLAG(int64_t, gen_tokens, 0,
          "run, describe (gpt2_small only): tokens an inference minibatch "
          "generates per sample after the prompt, with the KV cache; at "
          "least 1, seq_len + gen_tokens <= 1024; 0 = 16.");
ABSL_FLAG(std::string, kernel_shape, "",
          "run, kernels only: the shape, a row of the built-in DeepBench "
          "table (deepbench-train-1, deepbench-server-N, deepbench-device-N, "
          "optionally followed by a pass: -fwd, -bwd-data, -bwd-filter, "
          "-fwdbwd) or explicit: gemm m<M>-n<N>-k<K>[-nn|tn|nt|tt]; conv "
          "n<N>-c<C>-h<H>-w<W>-k<K>-r<R>-s<S>[-pad<P>][-stride<U>]"
          "[-fwd|-bwd-data|-bwd-filter]; rnn <vanilla|lstm|gru>-h<H>-b<B>-t<T>"
          "[-fwd|-fwdbwd].");
ABSL_FLAG(int32_t, warmup_iterations, 5,
          "run, kernels only: untimed iterations before timing (all but the "
          "first count the kernel launches).");
ABSL_FLAG(int32_t, warmup_minibatches, 0,
          "run, models: the first N minibatches are flagged as warm-up in "
          "their records (left out of summaries and models); -1 = none, 0 = "
          "the default: 3 on a CUDA device, none on the CPU.");
ABSL_FLAG(bool, cudnn_benchmark, false,
          "run, CUDA: let cuDNN time its algorithms and keep the fastest "
          "(torch.backends.cudnn.benchmark).");
ABSL_FLAG(std::string, dataset_path, "",
          "run: the data set directory: IDX files {train,t10k}-{images-idx3,"
          "labels-idx1}-ubyte[.gz] (e.g. /usr/share/datasets/fashion-mnist), "
          "CIFAR-10 binary batches (data_batch_1..5.bin, test_batch.bin) or "
          "JPEG image folders (train/<class>/*.jpg, val/<class>/*.jpg) or a "
          "text set (vocab.txt, train.tokens, test.tokens), bAbI task "
          "files (qa<N>_<name>_train.txt, _test.txt) or a speech set "
          "({train,test}-transcripts.tsv and their WAV files). The format is "
          "detected from the contents. `synthetic` (not a directory; give a "
          "directory of that name as ./synthetic): one minibatch of random "
          "tensors of the model's input shape, made in memory before timing "
          "and reused, no I/O (no --epochs then).");
ABSL_FLAG(std::string, task, "train",
          "run: train (train split, SGD) or infer (test split, no "
          "gradients).");
ABSL_FLAG(int64_t, batch_size, 64, "run: samples per minibatch (>= 1).");
ABSL_FLAG(int32_t, workers, 0,
          "run: loader threads building minibatches ahead; 0 = the compute "
          "thread builds each minibatch when it needs it.");
ABSL_FLAG(int32_t, prefetch_depth, 0,
          "run: at most this many minibatches built or being built ahead of "
          "the compute thread; 0 = two per worker (at least 1).");
ABSL_FLAG(std::string, page_cache, "keep",
          "run: keep, or drop the data set's files from the OS page cache "
          "(posix_fadvise DONTNEED) before every epoch.");
ABSL_FLAG(bool, preload, false,
          "run (infer only): build the minibatches in memory before timing "
          "starts, then time the forward passes over them.");
ABSL_FLAG(int64_t, preload_limit, 0,
          "run: with --preload, build at most this many minibatches (0 = "
          "--minibatches, else one epoch); the timed loop cycles over them.");
ABSL_FLAG(int64_t, input_size, 0,
          "run: side of the model input for image folders (0 = 224, or 299 "
          "for inception_v3); "
          "describe: input side (0 = the model's study default).");
ABSL_FLAG(int64_t, seq_len, 0,
          "run, describe (lstm_lm, mobilebert, seq2seq, seq2seq_lstm, memnet, "
          "gpt2_small, deepspeech2): tokens the model reads per sample (the "
          "prompt, in gpt2_small's inference; memnet: words per sentence; "
          "deepspeech2: spectrogram frames, 10 ms each, every utterance "
          "padded to them; 0 = the model's default: lstm_lm 35, up to 4096; "
          "mobilebert 128, up to 512; seq2seq and seq2seq_lstm 30, up to "
          "1024; memnet 8, up to 64; gpt2_small 128, up to 1023; deepspeech2 "
          "256, 32 to 3000).");
ABSL_FLAG(int64_t, vocab, 0,
          "run, describe (lstm_lm, mobilebert, seq2seq, seq2seq_lstm, "
          "memnet): vocabulary size (run: 0 = the data set's, else at least "
          "that; describe: 0 = lstm_lm 33278, mobilebert 30522, seq2seq and "
          "seq2seq_lstm 40000, memnet 23); "
          "gen-dataset --format text: "
          "the vocabulary (synthetic: 0 = 33278; WordNet: a cap, 0 = every "
          "word).");
ABSL_FLAG(std::string, from_wordnet, "",
          "gen-dataset --format text: tokenise the glosses of the WordNet "
          "database in this directory (Debian's wordnet-base: "
          "/usr/share/wordnet) instead of writing a synthetic "
          "Wikipedia-shaped corpus; --format speech: the words of the "
          "utterances come from these glosses (\"\" = /usr/share/wordnet).");
ABSL_FLAG(int64_t, epochs, 0,
          "run: stop after this many epochs (0 = no limit).");
ABSL_FLAG(int64_t, minibatches, 0,
          "run: stop after this many minibatches (0 = no limit).");
ABSL_FLAG(double, duration_s, 0,
          "run, idle: stop at the first minibatch end after this many seconds "
          "(0 = no limit); idle: how long to stay idle.");
ABSL_FLAG(uint64_t, seed, 0,
          "run: seed of the weights, the per-epoch shuffle (seed + epoch) and "
          "the augmentation; gen-dataset: seed of the images.");
ABSL_FLAG(int32_t, threads, 0,
          "run: intra-op threads; 0 = CPUs in the process's affinity mask.");
ABSL_FLAG(int32_t, records_fd, 1,
          "run, idle: file descriptor receiving the JSON-line records.");
ABSL_FLAG(int64_t, classes, 0,
          "describe: class count (0 = the model's study default); "
          "gen-dataset: classes of the set (0 = 10).");
ABSL_FLAG(bool, json, false, "describe: print one JSON object.");
ABSL_FLAG(std::string, format, "",
          "gen-dataset: idx, cifar10, image-folder, text, frames, babi or "
          "speech (espeak-ng utterances: WAV files and transcripts).");
ABSL_FLAG(std::string, out, "", "gen-dataset: the directory to write.");
ABSL_FLAG(int64_t, train_count, 1000,
          "gen-dataset: training samples (text: tokens of the synthetic "
          "corpus; babi: questions).");
ABSL_FLAG(int64_t, test_count, 200,
          "gen-dataset: test samples (text: tokens of the synthetic "
          "corpus; babi: questions).");
ABSL_FLAG(int64_t, image_size, 0,
          "gen-dataset: image side (0 = the format's: idx 28, cifar10 32, "
          "image-folder around 256 with varied aspect ratios).");

namespace {

constexpr char kUsage[] =
    R"(instrumented LibTorch training and inference runs, model
descriptions and synthetic data sets.

Usage:
  powersweep-workload run --model M --dataset-path DIR --task train|infer
      --batch-size N --workers N [--prefetch-depth N] [--page-cache keep|drop]
      [--preload] [--input-size S] [--seq-len L] [--vocab V]
      [--gen-tokens N] [--epochs N] [--minibatches N] [--duration-s X]
      [--warmup-minibatches N] [--cudnn-benchmark]
      --seed S --threads T --records-fd FD
  powersweep-workload run --model gemm|conv|rnn --kernel-shape SHAPE
      [--warmup-iterations N] (--minibatches N | --duration-s X) --seed S
      --threads T --records-fd FD
  powersweep-workload describe --model M [--classes N] [--input-size S]
      [--seq-len L] [--vocab V] [--gen-tokens N] [--json]
  powersweep-workload gen-dataset --format idx|cifar10|image-folder|text|frames|babi|speech
      --out DIR [--train-count N] [--test-count N] [--classes K]
      [--image-size S] [--vocab V] [--from-wordnet DIR] [--seed S]
  powersweep-workload idle --duration-s S [--records-fd FD]
  powersweep-workload --help

run: at least one of --epochs, --minibatches, --duration-s is needed; the
first limit reached ends the run. The last partial minibatch of an epoch is
dropped. Models: lenet5 (1x28x28), resnet18 and vgg11 (3x32x32 on CIFAR-10),
mobilenetv3 (MobileNetV3-large), resnet50, alexnet, squeezenet1_1 and vgg19
(3x224x224 on image folders), inception_v3 (3x299x299; image folders are
decoded at 299 unless --input-size is given, and training, which runs its
auxiliary classifier, needs at least 299);
vae (1x28x28 IDX sets), dqn (frames sets: 4 stacked 84x84 frames and the
next, trained with the Q-learning loss); the class (or action) count comes
from the data set. Sequence models on text sets: lstm_lm (PyTorch's
word_language_model, next-token loss, --seq-len 35) and mobilebert
(MobileBERT with its masked-LM head, --seq-len 128) and seq2seq (GRU
encoder-decoder with attention, --seq-len 30: the target is the source
window reversed; inference decodes greedily; seq2seq_lstm is the same
network with LSTM cells); the vocabulary comes from the
data set's vocab.txt. memnet (end-to-end memory network, 3 hops) on bAbI
sets: --seq-len is the words per sentence (8), the vocabulary the set's. gpt2_small (GPT-2 small, fixed vocabulary of
50257; on synthetic data): training reports tokens; inference generates
--gen-tokens tokens per sample with a KV cache and reports the time to
first token and the per-token latency. deepspeech2 (Deep Speech 2 scaled
for edge boards: 2-D convolutions over 80-band log-mel spectrograms,
bidirectional GRUs, CTC loss over 29 characters) on speech sets or
synthetic, --seq-len frames (default 256, 2.56 s); inference is the forward
pass and a greedy CTC decode; its tokens are spectrogram frames.

Kernels (DeepBench-style micro-benchmarks, no data set): gemm, conv and rnn
with --kernel-shape; each "minibatch" record is one timed iteration after
--warmup-iterations untimed ones (samples 1, compute_s the iteration). The
started event's workload.kernel gives the FLOPs, bytes and kernel launches
per iteration (forward_macs = FLOPs / 2). A shape whose operands do not fit
the memory available fails before allocating (exit 1, naming both sizes).

Records: one JSON object per line on --records-fd, the protobuf JSON form of
powersweep.v1.WorkloadEvent: a "started" event (build provenance and the
workload: parameters, forward MACs, data set format and size, storage
medium), one "minibatch" event per minibatch (stall_s, compute_s, e2e_s,
loss, and on each epoch's first minibatch page_cache_resident; for
gpt2_small tokens, and in inference ttft_s and per_token_s), then
"finished" (stop_reason: minibatches, epochs or duration). Logs go to stderr.

describe: parameters and multiply-accumulates of one forward pass at batch
size 1, counted on the network (torchvision's "GFLOPS" convention).

gen-dataset: writes a synthetic, learnable data set in the real file format
(IDX, CIFAR-10 binary, JPEG folders; frames: a ball-and-paddle game's
replay memory for dqn), so the loading code runs on real and
generated data alike; e.g. a GLD23k-shaped set is --format image-folder
--train-count 23080 --classes 2000. --format text --from-wordnet
/usr/share/wordnet tokenises the WordNet glosses (a real corpus); --format
text alone writes a Wikipedia-shaped corpus of --train-count/--test-count
tokens (WikiText-2's shape: 2088628 / 245569 tokens, --vocab 33278).
--format babi writes bAbI task-1 files (qa1_single-supporting-fact_*.txt)
of --train-count/--test-count questions from a simulated world of people
moving between rooms ("Where is Mary?" answered by her latest move).
--format speech speaks --train-count/--test-count utterances of 1-3 WordNet
words with Debian's espeak-ng (voice, speed and pitch varied) into 16-bit
WAV files with {train,test}-transcripts.tsv (needs the espeak-ng package).

idle: writes the "started" record, stays idle for --duration-s and writes
"finished": the idle process of a baseload run in a container.

Exit codes: 0 success; 2 bad arguments (the message names the flag);
1 the run failed (e.g. a corrupt data file, named in the message).

Example:
  powersweep-workload run --dataset-path /usr/share/datasets/fashion-mnist \
      --task train --batch-size 64 --workers 2 --minibatches 200 --seed 1
  powersweep-workload describe --model resnet18
  powersweep-workload run --model rnn --kernel-shape gru-h512-b32-t25-fwdbwd \
      --minibatches 100 --seed 1
)";

int Fail(int code, const std::string& message) {
  PS_LOG(ERROR) << message;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  powersweep::KeepFreedMemoryInTheHeap();  // before any thread starts
  powersweep::SetLogTag("powersweep-workload");
  absl::SetProgramUsageMessage(kUsage);
  std::vector<std::string> args = powersweep::NormalizeFlagArgs(argc, argv);
  if (powersweep::IsHelpRequest(args) || argc == 1) {
    // Without arguments this is a usage error: the text goes to stderr so
    // it cannot be mistaken for records on stdout.
    std::ostream& out = argc == 1 ? std::cerr : std::cout;
    out << "powersweep-workload: " << absl::ProgramUsageMessage() << "\n"
        << powersweep::FlagsHelp("workloads/main.cc");
    return argc == 1 ? 2 : 0;
  }
  std::vector<std::string> positional;
  absl::Status st = powersweep::CheckFlagArgs(args, &positional);
  if (!st.ok()) return Fail(2, std::string(st.message()));
  const std::string command = positional.size() == 1 ? positional[0] : "";
  if (command != "run" && command != "idle" && command != "describe" &&
      command != "gen-dataset") {
    return Fail(2, "expected one command: run, describe, gen-dataset or idle; "
                   "got '" + absl::StrJoin(positional, " ") + "' (see --help)");
  }
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  absl::ParseCommandLine(static_cast<int>(cargs.size()), cargs.data());
  if (command == "idle") {
    signal(SIGPIPE, SIG_IGN);
    powersweep::RealClock clock;
    powersweep::FdRecordSink sink(absl::GetFlag(FLAGS_records_fd));
    st = powersweep::RunIdle(absl::GetFlag(FLAGS_duration_s), &clock, &sink);
    if (!st.ok()) {
      return Fail(st.code() == absl::StatusCode::kInvalidArgument ? 2 : 1,
                  std::string(st.message()));
    }
    return 0;
  }
  if (command == "describe") {
    powersweep::DescribeArgs d;
    d.model = absl::GetFlag(FLAGS_model);
    d.classes = absl::GetFlag(FLAGS_classes);
    d.input_size = absl::GetFlag(FLAGS_input_size);
    d.seq_len = absl::GetFlag(FLAGS_seq_len);
    d.vocab = absl::GetFlag(FLAGS_vocab);
    d.gen_tokens = absl::GetFlag(FLAGS_gen_tokens);
    d.json = absl::GetFlag(FLAGS_json);
    return powersweep::RunDescribeCommand(d, std::cout);
  }
  if (command == "gen-dataset") {
    powersweep::GenDatasetArgs g;
    g.format = absl::GetFlag(FLAGS_format);
    g.out_dir = absl::GetFlag(FLAGS_out);
    g.train_count = absl::GetFlag(FLAGS_train_count);
    g.test_count = absl::GetFlag(FLAGS_test_count);
    g.classes = static_cast<int>(absl::GetFlag(FLAGS_classes));
    if (g.classes == 0) g.classes = 10;
    g.image_size = absl::GetFlag(FLAGS_image_size);
    g.seed = absl::GetFlag(FLAGS_seed);
    g.wordnet_dir = absl::GetFlag(FLAGS_from_wordnet);
    g.vocab = absl::GetFlag(FLAGS_vocab);
    return powersweep::RunGenDatasetCommand(g, std::cout);
  }

  powersweep::RunConfig config;
  config.model = absl::GetFlag(FLAGS_model);
  config.dataset_path = absl::GetFlag(FLAGS_dataset_path);
  absl::StatusOr<powersweep::v1::Task> task =
      powersweep::ParseTask(absl::GetFlag(FLAGS_task));
  if (!task.ok()) return Fail(2, std::string(task.status().message()));
  config.task = *task;
  config.batch_size = absl::GetFlag(FLAGS_batch_size);
  config.workers = absl::GetFlag(FLAGS_workers);
  config.epochs = absl::GetFlag(FLAGS_epochs);
  config.minibatches = absl::GetFlag(FLAGS_minibatches);
  config.duration_s = absl::GetFlag(FLAGS_duration_s);
  config.seed = absl::GetFlag(FLAGS_seed);
  config.threads = absl::GetFlag(FLAGS_threads);
  config.records_fd = absl::GetFlag(FLAGS_records_fd);
  config.prefetch_depth = absl::GetFlag(FLAGS_prefetch_depth);
  absl::StatusOr<powersweep::v1::PageCache> cache =
      powersweep::ParsePageCache(absl::GetFlag(FLAGS_page_cache));
  if (!cache.ok()) return Fail(2, std::string(cache.status().message()));
  config.page_cache = *cache;
  config.preload = absl::GetFlag(FLAGS_preload);
  config.preload_limit = absl::GetFlag(FLAGS_preload_limit);
  config.input_size = absl::GetFlag(FLAGS_input_size);
  config.seq_len = absl::GetFlag(FLAGS_seq_len);
  config.vocab = absl::GetFlag(FLAGS_vocab);
  config.kernel_shape = absl::GetFlag(FLAGS_kernel_shape);
  config.warmup_iterations = absl::GetFlag(FLAGS_warmup_iterations);
  config.warmup_minibatches = absl::GetFlag(FLAGS_warmup_minibatches);
  config.cudnn_benchmark = absl::GetFlag(FLAGS_cudnn_benchmark);
  config.gen_tokens = absl::GetFlag(FLAGS_gen_tokens);
  st = powersweep::ValidateRunConfig(config);
  if (!st.ok()) return Fail(2, std::string(st.message()));

  signal(SIGPIPE, SIG_IGN);  // a closed records pipe becomes a write error
  powersweep::RealClock clock;
  powersweep::FdRecordSink sink(config.records_fd);
  absl::StatusOr<powersweep::v1::WorkloadFinished> finished =
      powersweep::RunWorkload(config, &clock, &sink);
  if (!finished.ok()) {
    const int code =
        finished.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
    return Fail(code, std::string(finished.status().message()));
  }
  return 0;
}
