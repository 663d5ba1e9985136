// powersweep-workload: one instrumented LibTorch training or inference run.
// See docs/ARCHITECTURE.md "Workload command line and records". This file
// only defines the flags, turns them into a RunConfig and maps the result
// to an exit code (0 ok, 2 bad arguments, 1 run failed).
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
#include "workloads/runner/idle.h"
#include "workloads/runner/record_sink.h"
#include "workloads/runner/run_config.h"
#include "workloads/runner/runner.h"

ABSL_FLAG(std::string, model, "lenet5", "Model to run (known: lenet5).");
ABSL_FLAG(std::string, dataset_path, "",
          "Directory holding the IDX files {train,t10k}-{images-idx3,"
          "labels-idx1}-ubyte[.gz], e.g. /usr/share/datasets/fashion-mnist.");
ABSL_FLAG(std::string, task, "train",
          "train (train split, SGD) or infer (t10k split, no gradients).");
ABSL_FLAG(int64_t, batch_size, 64, "Samples per minibatch (>= 1).");
ABSL_FLAG(int32_t, workers, 0,
          "Loader threads building minibatches ahead; 0 = the compute thread "
          "builds each minibatch when it needs it.");
ABSL_FLAG(int64_t, epochs, 0, "Stop after this many epochs (0 = no limit).");
ABSL_FLAG(int64_t, minibatches, 0,
          "Stop after this many minibatches (0 = no limit).");
ABSL_FLAG(double, duration_s, 0,
          "Stop at the first minibatch end after this many seconds (0 = no "
          "limit).");
ABSL_FLAG(uint64_t, seed, 0,
          "Seed of the weights and of the per-epoch shuffle (seed + epoch).");
ABSL_FLAG(int32_t, threads, 0,
          "Intra-op threads; 0 = CPUs in the process's affinity mask.");
ABSL_FLAG(int32_t, records_fd, 1,
          "File descriptor receiving the JSON-line records.");

namespace {

constexpr char kUsage[] =
    R"(one instrumented training or inference run of a LibTorch model.

Usage:
  powersweep-workload run --model lenet5 --dataset-path DIR --task train|infer
      --batch-size N --workers N [--epochs N] [--minibatches N] [--duration-s X]
      --seed S --threads T --records-fd FD
  powersweep-workload --help

At least one of --epochs, --minibatches, --duration-s is needed; the first
limit reached ends the run. The last partial minibatch of an epoch is dropped.

Records: one JSON object per line on --records-fd, the protobuf JSON form of
powersweep.v1.WorkloadEvent: a "started" event (build provenance), one
"minibatch" event per minibatch (stall_s, compute_s, e2e_s, loss, ...), then
"finished" (stop_reason: minibatches, epochs or duration). Logs go to stderr.

Exit codes: 0 success; 2 bad arguments (the message names the flag);
1 the run failed (e.g. a corrupt data file, named in the message).

powersweep-workload idle --duration-s S [--records-fd FD] writes the
"started" record, stays idle for S seconds and writes "finished": the idle
process of a baseload run in a container.

Example:
  powersweep-workload run --dataset-path /usr/share/datasets/fashion-mnist \
      --task train --batch-size 64 --workers 2 --minibatches 200 --seed 1
)";

int Fail(int code, const std::string& message) {
  PS_LOG(ERROR) << message;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
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
  const bool idle = positional == std::vector<std::string>{"idle"};
  if (positional != std::vector<std::string>{"run"} && !idle) {
    return Fail(2, "expected the command 'run' or 'idle', got '" +
                       absl::StrJoin(positional, " ") + "' (see --help)");
  }
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  absl::ParseCommandLine(static_cast<int>(cargs.size()), cargs.data());
  if (idle) {
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
