#include "tests/integration/local_fleet.h"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <utility>
#include <thread>

#include "grpcpp/grpcpp.h"

namespace powersweep::testing {

v1::SweepSpec OrinTwinSweep(const std::string& name, v1::Task task,
                            int repetitions, int minibatches) {
  v1::SweepSpec spec;
  spec.set_name(name);
  spec.add_device_classes("orin-agx");
  spec.add_models("lenet5");
  spec.add_datasets("fashion-mnist");
  spec.add_tasks(task);
  spec.add_batch_sizes(32);
  spec.add_loader_workers(1);
  v1::PowerMode* m = spec.add_power_modes();
  m->set_cpu_cores(4);
  m->set_cpu_freq_khz(1497600);
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.set_repetitions(repetitions);
  spec.set_minibatches(minibatches);
  spec.set_seed(3);
  spec.set_telemetry_hz(10);
  spec.set_timeout_s(120);
  return spec;
}

LocalFleet::LocalFleet(LocalFleetOptions options)
    : dir_(MakeTempDir("powersweep-it")),
      controller_args_(std::move(options.controller_args)),
      controller_prefix_(std::move(options.controller_prefix)),
      db_dir_(std::move(options.db_dir)) {
  if (!StartController("127.0.0.1:0")) return;
  port_ = std::atoi(ReadFile(dir_ + "/port").c_str());
  if (port_ > 0) {
    stub_ = v1::Control::NewStub(grpc::CreateChannel(
        address(), options.control_credentials != nullptr
                       ? options.control_credentials
                       : grpc::InsecureChannelCredentials()));
  }
}

bool LocalFleet::StartController(const std::string& listen) {
  const std::string port_file =
      dir_ + "/port." + std::to_string(++controller_starts_);
  std::vector<std::string> argv = {POWERSWEEP_CONTROLLER_BIN,
                                   "--listen=" + listen, "--db=" + db_path(),
                                   "--port_file=" + port_file,
                                   "--heartbeat_s=0.5"};
  argv.insert(argv.end(), controller_args_.begin(), controller_args_.end());
  argv.insert(argv.begin(), controller_prefix_.begin(),
              controller_prefix_.end());
  controller_ = std::make_unique<Subprocess>(argv, dir_ + "/controller.log");
  const bool up =
      WaitFor([&] { return !ReadFile(port_file).empty(); }, 20);
  if (up && controller_starts_ == 1) {
    std::rename(port_file.c_str(), (dir_ + "/port").c_str());
  }
  return up;
}

void LocalFleet::StopController(int sig) {
  if (controller_) controller_->Kill(sig);
}

bool LocalFleet::RestartController() {
  controller_.reset();
  return StartController(address());
}

LocalFleet::~LocalFleet() {
  agents_.clear();
  if (controller_) controller_->Kill(SIGTERM);
}

void LocalFleet::StartAgent(const std::string& device_id) {
  StartAgent(device_id, {});
}

void LocalFleet::StartAgent(const std::string& device_id,
                            const std::vector<std::string>& extra_args) {
  agents_[device_id].reset();
  std::vector<std::string> argv = {
      POWERSWEEP_AGENT_BIN, "--controller=" + address(),
      "--device_id=" + device_id,
      "--work_dir=" + dir_ + "/agent-" + device_id,
      "--workload_bin=" POWERSWEEP_WORKLOAD_BIN};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  agents_[device_id] = std::make_unique<Subprocess>(
      argv, dir_ + "/agent-" + device_id + ".log");
}

Subprocess* LocalFleet::agent(const std::string& device_id) {
  auto it = agents_.find(device_id);
  return it == agents_.end() ? nullptr : it->second.get();
}

int64_t LocalFleet::Submit(const v1::SweepSpec& spec, std::string* error) {
  grpc::ClientContext ctx;
  v1::SubmitSweepRequest req;
  *req.mutable_spec() = spec;
  v1::SubmitSweepResponse resp;
  grpc::Status st = stub_->SubmitSweep(&ctx, req, &resp);
  if (!st.ok()) {
    if (error) *error = st.error_message();
    return 0;
  }
  return resp.sweep_id();
}

v1::SweepStatus LocalFleet::GetSweep(int64_t sweep_id) {
  grpc::ClientContext ctx;
  v1::GetSweepRequest req;
  req.set_sweep_id(sweep_id);
  v1::SweepStatus st;
  stub_->GetSweep(&ctx, req, &st);
  return st;
}

std::vector<v1::RunStatus> LocalFleet::ListRuns(int64_t sweep_id) {
  grpc::ClientContext ctx;
  v1::ListRunsRequest req;
  req.set_sweep_id(sweep_id);
  v1::ListRunsResponse resp;
  stub_->ListRuns(&ctx, req, &resp);
  return {resp.runs().begin(), resp.runs().end()};
}

std::vector<v1::DeviceStatus> LocalFleet::ListDevices() {
  grpc::ClientContext ctx;
  v1::ListDevicesResponse resp;
  stub_->ListDevices(&ctx, {}, &resp);
  return {resp.devices().begin(), resp.devices().end()};
}

int LocalFleet::PortFromFile(const std::string& path) {
  int port = 0;
  WaitFor(
      [&] {
        port = std::atoi(ReadFile(path).c_str());
        return port > 0;
      },
      20);
  return port;
}

bool LocalFleet::WaitFor(const std::function<bool()>& pred, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(
                            static_cast<int64_t>(timeout_s * 1000));
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

bool LocalFleet::WaitConnected(int count, double timeout_s) {
  return WaitFor(
      [&] {
        int connected = 0;
        for (const v1::DeviceStatus& d : ListDevices()) {
          connected += d.connected();
        }
        return connected == count;
      },
      timeout_s);
}

std::string LocalFleet::Logs() const {
  std::string out = "--- controller.log\n" + ReadFile(dir_ + "/controller.log");
  for (const auto& [id, agent] : agents_) {
    out += "--- agent-" + id + ".log\n" + ReadFile(dir_ + "/agent-" + id + ".log");
  }
  return out;
}

}  // namespace powersweep::testing
