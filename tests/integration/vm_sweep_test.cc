// The vm runtime through the whole system: a sweep with runtimes [native,
// vm] is validated by the real controller against what the host agent
// offers, the agent boots a real QEMU VM with the guest `make build` puts
// in build/vm-guest and runs the same powersweep-workload in it, and
// `compare --by runtime --sides native,vm` compares the two. The agent runs
// with --vm_accel=tcg (QEMU's emulation: this machine's KVM is PVM, which
// cannot boot Debian's kernel), which every vm result says. A
// container_in_vm sweep runs an image of the fake workload (small, so the
// emulated guest loads it in seconds) in Docker inside the VM.
#include <array>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/shell.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

using ::testing::HasSubstr;

v1::SweepSpec NativeAndVm() {
  v1::SweepSpec spec;
  spec.set_name("it-vm");
  spec.add_device_classes("host");
  spec.add_models("lenet5");
  spec.add_datasets("fashion-mnist");
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_batch_sizes(16);
  spec.add_loader_workers(0);
  spec.add_power_modes();
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.add_runtimes(v1::RUNTIME_VM);
  spec.mutable_vm()->set_vcpus(2);
  spec.mutable_vm()->set_memory_mib(2048);
  spec.set_repetitions(1);
  spec.set_minibatches(3);
  spec.set_seed(5);
  spec.set_threads(2);
  spec.set_telemetry_hz(2);
  spec.set_timeout_s(400);
  return spec;
}

bool Connected(LocalFleet& fleet) {
  auto devices = fleet.ListDevices();
  return devices.size() == 1 && devices[0].connected();
}

TEST(VmSweepTest, AVmRunIsRefusedWhereNoAgentOffersVms) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("it-novm-0", {"--vm_image=/nonexistent-guest"});
  // An explicit guest image that is not there stops the agent, naming it.
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return !fleet.agent("it-novm-0")->running(); }, 20));
  EXPECT_THAT(fleet.Logs(), HasSubstr("--vm_image"));
  fleet.StartAgent("it-novm-0", {"--qemu=/nonexistent/qemu"});
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return Connected(fleet); }, 20))
      << fleet.Logs();
  std::string error;
  EXPECT_EQ(fleet.Submit(NativeAndVm(), &error), 0);
  EXPECT_THAT(error, HasSubstr("runtimes[1]: no registered device of class "
                               "host offers the vm runtime"));
  EXPECT_EQ(QueryNumber(fleet.db_path(), "SELECT COUNT(*) FROM runs"), 0);
}

TEST(VmSweepTest, NativeAndVmRunsOfOneCellAreCompared) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("it-vm-0", {"--vm_accel=tcg"});
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return Connected(fleet); }, 20))
      << fleet.Logs();
  const v1::DeviceStatus device = fleet.ListDevices()[0];
  EXPECT_EQ(device.capabilities().vm_accel(), "tcg");
  std::string error;
  const int64_t sweep = fleet.Submit(NativeAndVm(), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 420))
      << fleet.Logs();
  for (const v1::RunStatus& r : fleet.ListRuns(sweep)) {
    EXPECT_EQ(r.state(), v1::RUN_STATE_DONE) << r.reason() << fleet.Logs();
    EXPECT_EQ(r.summary().minibatches(), 3);
  }
  const std::string db = fleet.db_path();
  // One build on both sides: the guest ran the host's workload binary.
  EXPECT_EQ(QueryNumber(db, "SELECT COUNT(DISTINCT binary_fingerprint) "
                            "FROM run_results"),
            1);
  const auto vm = Query(db, "SELECT res.result_json FROM run_results res "
                            "JOIN runs r USING (run_id) WHERE r.runtime = 'vm'");
  ASSERT_EQ(vm.size(), 1u);
  EXPECT_THAT(vm[0][0], HasSubstr("\"accel\":\"tcg\""));
  EXPECT_THAT(vm[0][0], HasSubstr("\"vcpus\":2"));
  EXPECT_THAT(vm[0][0], HasSubstr("linux-image-"));
  EXPECT_THAT(vm[0][0], HasSubstr("boot_to_first_record_s"));

  v1::CompareRequest req;
  req.set_sweep_id(sweep);
  req.set_by("runtime");
  req.add_sides("native");
  req.add_sides("vm");
  v1::CompareResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(fleet.control()->Compare(&ctx, req, &resp).ok());
  const v1::Table& t = resp.table();
  std::vector<std::string> header(t.header().begin(), t.header().end());
  EXPECT_THAT(header, ::testing::Contains("n native"));
  EXPECT_THAT(header, ::testing::Contains("n vm"));
  EXPECT_GT(t.rows_size(), 0);
}

TEST(VmSweepTest, ContainerInVmRunsThroughTheController) {
  const std::string src = POWERSWEEP_SOURCE_DIR;
  auto [up, up_out] = Shell(src + "/infra/scripts/start-dockerd.sh");
  ASSERT_EQ(up, 0) << "no Docker engine (CI installs docker.io): " << up_out;
  auto [built, out] = Shell("IMAGE_REPO=powersweep-fake-workload " + src +
                            "/infra/docker/build-workload-image.sh " +
                            FAKE_WORKLOAD);
  ASSERT_EQ(built, 0) << out;
  const std::string image = out.substr(out.rfind("image: ") + 7,
                                       out.find('\n', out.rfind("image: ")) -
                                           out.rfind("image: ") - 7);
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("it-civ-0",
                   {"--vm_accel=tcg", "--container_images=" + image});
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        auto d = fleet.ListDevices();
        return d.size() == 1 && d[0].connected() &&
               d[0].capabilities().runtimes_size() == 4;
      },
      30))
      << fleet.Logs();
  v1::SweepSpec spec = NativeAndVm();
  spec.set_name("it-container-in-vm");
  spec.set_runtimes(1, v1::RUNTIME_CONTAINER_IN_VM);
  spec.set_container_image(image);
  spec.clear_vm();
  // One vCPU: under TCG a 2-vCPU guest once soft-locked both vCPUs while
  // runc started the container (docs/vm.md).
  spec.add_vm_vcpus(1);
  spec.add_vm_memory_mib(1024);
  std::string error;
  const int64_t sweep = fleet.Submit(spec, &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 540))
      << fleet.Logs();
  for (const v1::RunStatus& r : fleet.ListRuns(sweep)) {
    EXPECT_EQ(r.state(), v1::RUN_STATE_DONE) << r.reason() << fleet.Logs();
    EXPECT_EQ(r.summary().minibatches(), 3);
  }
  const std::string db = fleet.db_path();
  const auto civ = Query(db, "SELECT res.result_json FROM run_results res "
                             "JOIN runs r USING (run_id) "
                             "WHERE r.runtime = 'container_in_vm'");
  ASSERT_EQ(civ.size(), 1u);
  EXPECT_THAT(civ[0][0], HasSubstr("\"accel\":\"tcg\""));
  EXPECT_THAT(civ[0][0], HasSubstr("\"memory_mib\":1024"));
  EXPECT_THAT(civ[0][0], HasSubstr("guest_image_loaded_s"));
  EXPECT_THAT(civ[0][0], HasSubstr("guest_image_id"));

  v1::CompareRequest req;
  req.set_sweep_id(sweep);
  req.set_by("runtime");
  req.add_sides("native");
  req.add_sides("container_in_vm");
  v1::CompareResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(fleet.control()->Compare(&ctx, req, &resp).ok());
  std::vector<std::string> header(resp.table().header().begin(),
                                  resp.table().header().end());
  EXPECT_THAT(header, ::testing::Contains("n container_in_vm"));
  ASSERT_GT(resp.table().rows_size(), 0);
  // The cell names the VM's shape.
  EXPECT_THAT(resp.table().rows(0).cells(0), HasSubstr("vm 1 vCPU 1024 MiB"));
}

}  // namespace
}  // namespace powersweep::testing
