#include "tests/controller/core/fleet_test_util.h"

#include <stdlib.h>

#include <filesystem>

#include "storage/sqlite_store.h"

namespace powersweep {

bool FakeAgentConnection::Send(const v1::ControllerMessage& msg) {
  absl::MutexLock lock(&mu_);
  ++attempts_;
  if (closed_ || fail_) return false;
  sent_.push_back(msg);
  return true;
}

void FakeAgentConnection::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
}

void FakeAgentConnection::SetWriteWaiting(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  write_waiting_ = d;
}

absl::Duration FakeAgentConnection::WriteWaiting() const {
  absl::MutexLock lock(&mu_);
  return write_waiting_;
}

void FakeAgentConnection::FailSends() {
  absl::MutexLock lock(&mu_);
  fail_ = true;
}

bool FakeAgentConnection::closed() const {
  absl::MutexLock lock(&mu_);
  return closed_;
}

int FakeAgentConnection::send_attempts() const {
  absl::MutexLock lock(&mu_);
  return attempts_;
}

std::vector<v1::ControllerMessage> FakeAgentConnection::sent() const {
  absl::MutexLock lock(&mu_);
  return sent_;
}

std::vector<v1::RunSpec> FakeAgentConnection::Assigned() const {
  std::vector<v1::RunSpec> out;
  for (const auto& m : sent()) {
    if (m.has_assign()) out.push_back(m.assign().spec());
  }
  return out;
}

std::vector<int64_t> FakeAgentConnection::AssignedRunIds() const {
  std::vector<int64_t> out;
  for (const auto& spec : Assigned()) out.push_back(spec.run_id());
  return out;
}

std::vector<std::pair<int64_t, int64_t>> FakeAgentConnection::Acks() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& m : sent()) {
    if (m.has_ack()) out.emplace_back(m.ack().run_id(), m.ack().seq());
  }
  return out;
}

std::vector<int64_t> FakeAgentConnection::CancelledRunIds() const {
  std::vector<int64_t> out;
  for (const auto& m : sent()) {
    if (m.has_cancel()) out.push_back(m.cancel().run_id());
  }
  return out;
}

v1::DeviceCapabilities HostCaps(int cpu_cores) {
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(cpu_cores);
  caps.set_memory_bytes(int64_t{8} << 30);
  caps.add_runtimes(v1::RUNTIME_NATIVE);
  caps.add_models("lenet5");
  caps.add_datasets("fashion-mnist");
  return caps;
}

v1::RunSpec HostRun(int cpu_cores) {
  v1::RunSpec spec;
  spec.set_device_class("host");
  spec.set_runtime(v1::RUNTIME_NATIVE);
  spec.mutable_workload()->set_model("lenet5");
  spec.mutable_workload()->set_dataset("fashion-mnist");
  spec.mutable_workload()->set_task(v1::TASK_TRAIN);
  spec.mutable_workload()->set_batch_size(32);
  spec.mutable_workload()->set_minibatches(10);
  spec.mutable_power_mode()->set_cpu_cores(cpu_cores);
  spec.set_telemetry_hz(10);
  spec.set_timeout_s(600);
  return spec;
}

void FleetTest::SetUp() {
  std::string templ = ::testing::TempDir() + "/fleet_test_XXXXXX";
  ASSERT_NE(mkdtemp(templ.data()), nullptr);
  dir_ = templ;
  auto store = SqliteStore::Open(dir_ + "/fleet.db");
  ASSERT_TRUE(store.ok()) << store.status();
  store_ = std::move(*store);
  FleetOptions options;
  options.heartbeat_interval = absl::Seconds(2);
  fleet_ = std::make_unique<Fleet>(store_.get(), &clock_, options);
}

void FleetTest::TearDown() {
  fleet_.reset();
  store_.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

v1::Register FleetTest::RegisterOf(const std::string& device_id,
                                  const v1::DeviceCapabilities& caps,
                                  const std::string& device_class) {
  v1::Register reg;
  reg.mutable_identity()->set_device_id(device_id);
  reg.mutable_identity()->set_device_class(device_class);
  reg.mutable_identity()->set_platform("host");
  reg.mutable_identity()->set_hostname(device_id + ".lab");
  *reg.mutable_capabilities() = caps;
  return reg;
}

std::shared_ptr<FakeAgentConnection> FleetTest::ConnectWith(
    v1::Register reg, absl::Status* status, bool identity_verified) {
  const std::string device_id = reg.identity().device_id();
  // A reconnecting agent presents the resume token of its last session.
  std::shared_ptr<FakeAgentConnection> previous;
  {
    absl::MutexLock lock(&conns_mu_);
    auto it = conns_.find(device_id);
    if (it != conns_.end()) previous = it->second;
  }
  if (reg.resume_token().empty() && previous != nullptr) {
    for (const v1::ControllerMessage& m : previous->sent()) {
      if (m.has_registered()) {
        reg.set_resume_token(m.registered().resume_token());
      }
    }
  }
  auto conn = std::make_shared<FakeAgentConnection>();
  *status = fleet_->Register(reg, conn, identity_verified);
  if (!status->ok()) return nullptr;
  absl::MutexLock lock(&conns_mu_);
  conns_[device_id] = conn;
  return conn;
}

std::shared_ptr<FakeAgentConnection> FleetTest::Connect(
    const std::string& device_id, const v1::DeviceCapabilities& caps,
    const std::string& device_class, int64_t active_run_id) {
  v1::Register reg = RegisterOf(device_id, caps, device_class);
  reg.set_active_run_id(active_run_id);
  absl::Status st;
  auto conn = ConnectWith(reg, &st);
  EXPECT_TRUE(st.ok()) << st;
  return conn;
}

void FleetTest::RestartController(FleetOptions options) {
  fleet_ = std::make_unique<Fleet>(store_.get(), &clock_, options);
  absl::MutexLock lock(&conns_mu_);
  conns_.clear();
}


std::vector<int64_t> FleetTest::AddSweep(const std::vector<v1::RunSpec>& runs,
                                         int max_retries) {
  v1::SweepSpec spec;
  spec.set_name("fleet-test");
  spec.add_device_classes("host");
  spec.set_max_retries(max_retries);
  auto sweep_id = store_->CreateSweep(spec, runs, clock_.Now());
  EXPECT_TRUE(sweep_id.ok()) << sweep_id.status();
  std::vector<int64_t> ids;
  if (!sweep_id.ok()) return ids;
  auto listed = store_->ListRuns(*sweep_id);
  EXPECT_TRUE(listed.ok()) << listed.status();
  if (!listed.ok()) return ids;
  for (const v1::RunStatus& r : *listed) ids.push_back(r.spec().run_id());
  return ids;
}

v1::RunStatus FleetTest::Run(int64_t run_id) {
  auto run = store_->GetRun(run_id);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : v1::RunStatus();
}

std::vector<RunStateChange> FleetTest::History(int64_t run_id) {
  auto history = store_->GetRunHistory(run_id);
  EXPECT_TRUE(history.ok()) << history.status();
  return history.ok() ? *history : std::vector<RunStateChange>();
}

std::vector<std::string> FleetTest::ReasonsFor(int64_t run_id,
                                               v1::RunState to) {
  std::vector<std::string> out;
  for (const RunStateChange& c : History(run_id)) {
    if (c.from != v1::RUN_STATE_UNSPECIFIED && c.to == to) {
      out.push_back(c.reason);
    }
  }
  return out;
}

void FleetTest::Deliver(const std::string& device_id,
                        const v1::AgentMessage& msg) {
  // A device that never connected sends on a session the fleet never saw.
  std::shared_ptr<FakeAgentConnection> conn;
  {
    absl::MutexLock lock(&conns_mu_);
    auto it = conns_.find(device_id);
    if (it != conns_.end()) conn = it->second;
  }
  fleet_->HandleMessage(device_id, conn.get(), msg);
}

void FleetTest::SendStarted(const std::string& device_id, int64_t run_id) {
  v1::AgentMessage msg;
  msg.mutable_run_started()->set_run_id(run_id);
  auto* mode = msg.mutable_run_started()->mutable_applied_mode();
  mode->mutable_requested()->set_cpu_cores(1);
  mode->mutable_actual()->set_cpu_cores(1);
  mode->set_cores_provenance(v1::PROVENANCE_MEASURED);
  Deliver(device_id, msg);
}

void FleetTest::SendBatch(const std::string& device_id, int64_t run_id,
                          int64_t seq, int minibatches) {
  v1::AgentMessage msg;
  v1::DataBatch* batch = msg.mutable_batch();
  batch->set_run_id(run_id);
  batch->set_seq(seq);
  for (int i = 0; i < minibatches; ++i) {
    v1::MinibatchRecord* r = batch->add_minibatches();
    r->set_index((seq - 1) * minibatches + i);
    r->set_t_start_s(0.1 * r->index());
    r->set_stall_s(0.01);
    r->set_compute_s(0.05);
    r->set_e2e_s(0.07);
    r->set_samples(32);
    r->set_loss(2.0);
  }
  Deliver(device_id, msg);
}

void FleetTest::SendFinished(const std::string& device_id, int64_t run_id,
                             int64_t batches, bool ok,
                             const std::string& reason) {
  v1::AgentMessage msg;
  v1::RunResult* result = msg.mutable_run_finished()->mutable_result();
  result->set_run_id(run_id);
  result->set_ok(ok);
  result->set_reason(reason);
  result->set_exit_code(ok ? 0 : 1);
  result->set_duration_s(1.5);
  msg.mutable_run_finished()->set_batches(batches);
  Deliver(device_id, msg);
}

void FleetTest::SendFinishedResult(const std::string& device_id,
                                   const v1::RunResult& result,
                                   int64_t batches) {
  v1::AgentMessage msg;
  *msg.mutable_run_finished()->mutable_result() = result;
  msg.mutable_run_finished()->set_batches(batches);
  Deliver(device_id, msg);
}

void FleetTest::SendHeartbeat(const std::string& device_id) {
  v1::AgentMessage msg;
  msg.mutable_heartbeat();
  Deliver(device_id, msg);
}

std::shared_ptr<FakeAgentConnection> FleetTest::Session(
    const std::string& device_id) {
  absl::MutexLock lock(&conns_mu_);
  auto it = conns_.find(device_id);
  return it == conns_.end() ? nullptr : it->second;
}

}  // namespace powersweep
