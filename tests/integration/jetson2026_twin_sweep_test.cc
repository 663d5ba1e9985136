// The Jetsons of 2026 on twins: a real controller and three twin agents
// (Thor, Orin NX and Orin Nano with JetPack 6.2's Super modes) run one
// sweep whose power modes are each class's own nvpmodel presets. Every run
// must end done with simulated energy; Thor's board power is its input
// rail; a preset that needs a reboot on a board says so on the twin; the
// time the clocks took to settle is in the applied mode.
#include <string>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

void AddMode(v1::SweepSpec* spec, const std::string& preset,
             std::initializer_list<const char*> classes) {
  spec->add_power_modes()->set_preset(preset);
  v1::PowerModeClasses* c = spec->add_power_mode_classes();
  for (const char* cls : classes) c->add_device_classes(cls);
}

v1::SweepSpec NewClasses() {
  v1::SweepSpec spec;
  spec.set_name("it-jetson-2026");
  for (const char* cls : {"thor", "orin-nx", "orin-nano"}) {
    spec.add_device_classes(cls);
  }
  spec.add_models("resnet18");
  spec.add_datasets("cifar10");
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_batch_sizes(32);
  spec.add_loader_workers(2);
  AddMode(&spec, "MAXN", {"thor"});
  AddMode(&spec, "120W", {"thor"});
  AddMode(&spec, "90W", {"thor"});
  AddMode(&spec, "MAXN_SUPER", {"orin-nx", "orin-nano"});
  AddMode(&spec, "25W", {"orin-nx", "orin-nano"});
  AddMode(&spec, "10W", {"orin-nx"});
  AddMode(&spec, "15W", {"orin-nano"});
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.set_repetitions(1);  // thor 3 + orin-nx 3 + orin-nano 3 = 9
  spec.set_minibatches(20);
  spec.set_seed(5);
  spec.set_telemetry_hz(10);
  spec.set_timeout_s(600);
  return spec;
}

std::string ClassQuery(const std::string& what, const std::string& cls,
                       const std::string& preset) {
  return "SELECT " + what +
         " FROM runs r JOIN run_results x ON x.run_id = r.run_id WHERE "
         "r.device_class = '" + cls + "' AND r.preset = '" + preset + "'";
}

TEST(Jetson2026TwinSweepTest, ThorOrinNxAndOrinNanoTwinsRunTheirPresets) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  for (const std::string cls : {"thor", "orin-nx", "orin-nano"}) {
    fleet.StartAgent(cls + "-twin-0",
                     {"--platform=twin", "--device_class=" + cls,
                      "--instance=0", "--twin_seed=1",
                      "--twin_time_scale=0.01", "--log_level=warning"});
  }
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        int connected = 0;
        for (const auto& d : fleet.ListDevices()) connected += d.connected();
        return connected == 3;
      },
      60))
      << fleet.Logs();
  std::string error;
  const int64_t sweep = fleet.Submit(NewClasses(), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 240))
      << fleet.Logs();
  const auto runs = fleet.ListRuns(sweep);
  ASSERT_EQ(runs.size(), 9u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.state(), v1::RUN_STATE_DONE)
        << run.spec().device_class() << " " << run.spec().power_mode().preset()
        << ": " << run.reason();
  }
  const std::string db = fleet.db_path();
  EXPECT_EQ(QueryNumber(db,
                        "SELECT COUNT(*) FROM run_results WHERE energy_j > 0 "
                        "AND energy_provenance = 'simulated'"),
            9);
  // The modes show through: Thor at MAXN draws more than at 120W, and
  // more than an Orin Nano at MAXN_SUPER; MAXN_SUPER is faster than 15W.
  const double thor_maxn =
      QueryNumber(db, ClassQuery("x.energy_j / x.duration_s", "thor", "MAXN"));
  const double thor_120 =
      QueryNumber(db, ClassQuery("x.energy_j / x.duration_s", "thor", "120W"));
  const double nano_maxn =
      QueryNumber(db, ClassQuery("x.energy_j / x.duration_s", "orin-nano", "MAXN_SUPER"));
  EXPECT_GT(thor_maxn, thor_120);
  EXPECT_GT(thor_maxn, 2 * nano_maxn);
  auto minibatch_s = [&](const std::string& cls, const std::string& preset) {
    return QueryNumber(
        db,
        "SELECT AVG(m.e2e_s) FROM minibatches m JOIN runs r ON r.run_id = "
        "m.run_id WHERE r.device_class = '" + cls + "' AND r.preset = '" +
            preset + "'");
  };
  EXPECT_LT(minibatch_s("orin-nano", "MAXN_SUPER"),
            minibatch_s("orin-nano", "15W"));
  // Thor's 90W gates GPU units: a board needs a reboot, the twin says so.
  EXPECT_EQ(QueryNumber(db,
                        ClassQuery("COUNT(*)", "thor", "90W") +
                            " AND r.applied_mode_json LIKE '%needs a reboot%'"),
            1);
  // 120W lowers the GPU clock from the twin's maximum: the GPU's settle
  // latency (5 ms, modeled) is recorded with the applied mode.
  EXPECT_DOUBLE_EQ(
      QueryNumber(db, ClassQuery("json_extract(r.applied_mode_json, "
                                 "'$.settle_s')",
                                 "thor", "120W")),
      0.005);
}

// `devices --modes CLASS`: a class's modes without a registered device,
// the presets of another GPU power gating noted.
TEST(Jetson2026TwinSweepTest, ModesOfAClassAreListedWithoutADevice) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  grpc::ClientContext ctx;
  v1::ListModesRequest req;
  req.set_device_id("thor");
  v1::ListModesResponse resp;
  ASSERT_TRUE(fleet.control()->ListModes(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.device_class(), "thor");
  EXPECT_EQ(resp.core_choices(), 14);
  ASSERT_EQ(resp.presets_size(), 4);
  EXPECT_EQ(resp.presets(1).name(), "120W");
  EXPECT_TRUE(resp.presets(2).gpu_pg_mask_known());
  EXPECT_EQ(resp.presets(2).gpu_pg_mask(), 15873);
  grpc::ClientContext ctx2;
  req.set_device_id("no-such-board");
  grpc::Status st = fleet.control()->ListModes(&ctx2, req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(st.error_message().find("classes: "), std::string::npos);
}

}  // namespace
}  // namespace powersweep::testing
