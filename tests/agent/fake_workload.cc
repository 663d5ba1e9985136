// Test-only stand-in for powersweep-workload. Accepts the real workload's
// command line (unknown flags are ignored) plus test knobs, and writes
// WorkloadEvent JSON lines to --records-fd.
//
//   --minibatches N     minibatch events to write (default 3)
//   --interval-ms M     pause between minibatches (default 0)
//   --sleep-s S         sleep S seconds before exiting (after the records),
//                       in 50 ms naps (a tracer that attaches during the
//                       sleep still sees the process switch out)
//   --exit-code C       exit with C after the records (default 0)
//   --crash             abort() (SIGABRT) after the records
//   --no-finished       omit the `finished` event
//   --ignore-term       ignore SIGTERM
//   --stderr TEXT       write TEXT as the last stderr line before exiting
//   --print-affinity    put the CPU affinity ("0,1") in started.device
//   --print-argv        write every argv element to stderr, one per line
// Knobs may also come from the environment variable FAKE_WORKLOAD_FLAGS
// (space-separated), for tests where the agent builds the argv itself; they
// are applied after the command line.
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/proto_json.h"
#include "powersweep/v1/records.pb.h"

namespace {

void WriteLine(int fd, const google::protobuf::Message& msg) {
  std::string line = powersweep::ToJsonLine(msg) + "\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = write(fd, line.data() + off, line.size() - off);
    if (n <= 0) _exit(3);
    off += static_cast<size_t>(n);
  }
}

std::string Affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof(set), &set);
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    if (!out.empty()) out += ",";
    out += std::to_string(c);
  }
  return out;
}

}  // namespace

int main(int real_argc, char** real_argv) {
  std::vector<std::string> store(real_argv, real_argv + real_argc);
  if (const char* env = getenv("FAKE_WORKLOAD_FLAGS")) {
    std::istringstream in(env);
    for (std::string w; in >> w;) store.push_back(w);
  }
  std::vector<char*> args;
  for (std::string& s : store) args.push_back(s.data());
  const int argc = static_cast<int>(args.size());
  char** argv = args.data();
  int fd = 1, minibatches = 3, interval_ms = 0, exit_code = 0;
  double sleep_s = 0;
  bool crash = false, no_finished = false, print_affinity = false;
  std::string stderr_text;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--records-fd") fd = atoi(next), ++i;
    else if (a == "--minibatches") minibatches = atoi(next), ++i;
    else if (a == "--interval-ms") interval_ms = atoi(next), ++i;
    else if (a == "--sleep-s") sleep_s = atof(next), ++i;
    else if (a == "--exit-code") exit_code = atoi(next), ++i;
    else if (a == "--stderr") stderr_text = next, ++i;
    else if (a == "--crash") crash = true;
    else if (a == "--no-finished") no_finished = true;
    else if (a == "--ignore-term") signal(SIGTERM, SIG_IGN);
    else if (a == "--print-affinity") print_affinity = true;
    else if (a == "--print-argv") {
      for (int j = 0; j < argc; ++j) fprintf(stderr, "%s\n", argv[j]);
    }
  }
  fprintf(stderr, "fake workload starting\n");
  powersweep::v1::WorkloadEvent started;
  started.mutable_started()->set_framework("fake");
  started.mutable_started()->set_framework_version("0.0");
  started.mutable_started()->set_device(print_affinity ? Affinity() : "cpu");
  WriteLine(fd, started);
  for (int i = 0; i < minibatches; ++i) {
    if (interval_ms > 0) usleep(interval_ms * 1000);
    powersweep::v1::WorkloadEvent e;
    auto* m = e.mutable_minibatch();
    m->set_index(i);
    m->set_t_start_s(i * 0.01);
    m->set_stall_s(0.001);
    m->set_compute_s(0.005);
    m->set_e2e_s(0.007);
    m->set_samples(32);
    m->set_loss(2.0 - 0.01 * i);
    WriteLine(fd, e);
  }
  if (!no_finished) {
    powersweep::v1::WorkloadEvent f;
    f.mutable_finished()->set_minibatches(minibatches);
    f.mutable_finished()->set_stop_reason("minibatches");
    WriteLine(fd, f);
  }
  for (double slept = 0; slept < sleep_s; slept += 0.05) usleep(50 * 1000);
  if (!stderr_text.empty()) fprintf(stderr, "%s\n", stderr_text.c_str());
  fflush(stderr);
  if (crash) abort();
  return exit_code;
}
