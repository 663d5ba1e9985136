// Fathom's seq2seq and memnet through the whole system: a real controller,
// a host agent serving a generated Wikipedia-shaped text set as `wikitext`
// and a generated bAbI set as `babi` (real workload processes), and an
// orin-agx twin agent; one sweep of seq2seq/wikitext, memnet/babi and
// memnet/synthetic, train and infer, runs on both; every run ends done
// with its minibatches stored and their tokens counted as the workload
// counts them (memnet: 51 sentences of 8 words per sample).
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

constexpr int kMinibatches = 3;
constexpr int kBatch = 4;

TEST(FathomTextSweepTest, Seq2SeqAndMemNetRunOnHostAndTwin) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  const std::string text = fleet.dir() + "/wikitext";
  const std::string babi = fleet.dir() + "/babi";
  const std::string gen = std::string(POWERSWEEP_WORKLOAD_BIN) +
                          " gen-dataset --format text --train-count 5000 "
                          "--test-count 2000 --vocab 100 --out " + text +
                          " >/dev/null && " + POWERSWEEP_WORKLOAD_BIN +
                          " gen-dataset --format babi --train-count 100 "
                          "--test-count 40 --out " + babi + " >/dev/null";
  ASSERT_EQ(std::system(gen.c_str()), 0) << gen;
  fleet.StartAgent("it-host-0",
                   {"--dataset=wikitext=" + text, "--dataset=babi=" + babi});
  fleet.StartAgent("orin-agx-twin-0",
                   {"--platform=twin", "--device_class=orin-agx",
                    "--twin_time_scale=0", "--log_level=warning"});
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        int connected = 0;
        for (const auto& d : fleet.ListDevices()) connected += d.connected();
        return connected == 2;
      },
      60))
      << fleet.Logs();

  v1::SweepSpec spec;
  spec.set_name("it-fathom-text");
  spec.add_device_classes("host");
  spec.add_device_classes("orin-agx");
  for (const char* w : {"seq2seq/wikitext", "memnet/babi", "memnet/synthetic"}) {
    spec.add_workloads(w);
  }
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_tasks(v1::TASK_INFER);
  spec.add_batch_sizes(kBatch);
  spec.add_loader_workers(1);
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.set_seq_len(8);  // seq2seq's window, memnet's words per sentence
  spec.set_repetitions(1);
  spec.set_minibatches(kMinibatches);
  spec.set_seed(1);
  spec.set_timeout_s(600);
  std::string error;
  const int64_t sweep = fleet.Submit(spec, &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 280))
      << fleet.Logs();
  const auto runs = fleet.ListRuns(sweep);
  ASSERT_EQ(runs.size(), 2u * 3u * 2u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.state(), v1::RUN_STATE_DONE)
        << run.spec().workload().model() << " on "
        << run.spec().workload().dataset() << ": " << run.reason();
  }
  const std::string db = fleet.db_path();
  EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*) FROM minibatches"),
            12 * kMinibatches);
  // Tokens per minibatch as the workload (and the twin) count them.
  for (const char* cls : {"host", "orin-agx"}) {
    const std::string where =
        std::string("FROM minibatches m JOIN runs r ON r.run_id = m.run_id "
                    "WHERE r.device_class = '") + cls + "' AND r.model = ";
    EXPECT_EQ(QueryNumber(db, "SELECT MIN(m.tokens) " + where + "'seq2seq'"),
              kBatch * 8) << cls;
    EXPECT_EQ(QueryNumber(db, "SELECT MAX(m.tokens) " + where + "'memnet'"),
              kBatch * 51 * 8) << cls;
    EXPECT_EQ(QueryNumber(db, "SELECT MIN(m.tokens) " + where + "'memnet'"),
              kBatch * 51 * 8) << cls;
  }
}

}  // namespace
}  // namespace powersweep::testing
