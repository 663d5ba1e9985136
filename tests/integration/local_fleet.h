// LocalFleet: a real powersweep-controller and real powersweep-agent
// processes on loopback for integration tests, with a Control stub and
// polling helpers bounded by deadlines. Not thread-safe.
#ifndef POWERSWEEP_TESTS_INTEGRATION_LOCAL_FLEET_H_
#define POWERSWEEP_TESTS_INTEGRATION_LOCAL_FLEET_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "grpcpp/security/credentials.h"
#include "powersweep/v1/control.grpc.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/sweep.pb.h"
#include "powersweep/v1/workload.pb.h"
#include "tests/integration/subprocess.h"

namespace powersweep::testing {

struct LocalFleetOptions {
  // Appended to the controller's command line (e.g. --tls_cert=...).
  std::vector<std::string> controller_args;
  // Put before the controller's command line, e.g. {"/usr/bin/prlimit",
  // "--nofile=1024:1024", "--"} to run it under a unit's limits.
  std::vector<std::string> controller_prefix;
  // Folder of the controller's database; empty: the fleet's temp dir.
  std::string db_dir;
  // Credentials of the control() stub's channel; null: plaintext.
  std::shared_ptr<grpc::ChannelCredentials> control_credentials;
};

// A sweep of LeNet-5 on Fashion-MNIST for orin-agx twins: one mode (4
// cores at 1497.6 MHz), native, `repetitions` runs of `minibatches`.
v1::SweepSpec OrinTwinSweep(const std::string& name, v1::Task task,
                            int repetitions, int minibatches);

class LocalFleet {
 public:
  // Starts a controller on a free port with its database in a new temp dir.
  LocalFleet() : LocalFleet(LocalFleetOptions()) {}
  explicit LocalFleet(LocalFleetOptions options);
  ~LocalFleet();

  const std::string& dir() const { return dir_; }
  std::string db_path() const {
    return (db_dir_.empty() ? dir_ : db_dir_) + "/powersweep.db";
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  bool ok() const { return port_ > 0; }
  v1::Control::Stub* control() { return stub_.get(); }

  // Kills the controller with `sig` (SIGKILL: a crash) and waits for it.
  void StopController(int sig);
  // Starts the controller again on the same port and database; true once
  // it serves.
  bool RestartController();
  Subprocess* controller() { return controller_.get(); }

  // Starts (or restarts) an agent with this device id.
  void StartAgent(const std::string& device_id);
  // The same with extra command-line arguments, e.g. {"--platform=twin",
  // "--device_class=orin-agx", "--instance=3"}.
  void StartAgent(const std::string& device_id,
                  const std::vector<std::string>& extra_args);
  Subprocess* agent(const std::string& device_id);

  // Submits; returns the sweep id or 0 (with the error in *error).
  int64_t Submit(const v1::SweepSpec& spec, std::string* error = nullptr);
  v1::SweepStatus GetSweep(int64_t sweep_id);
  std::vector<v1::RunStatus> ListRuns(int64_t sweep_id);
  std::vector<v1::DeviceStatus> ListDevices();

  // Polls `pred` every 50 ms until true or `timeout_s` elapses.
  static bool WaitFor(const std::function<bool()>& pred, double timeout_s);
  // True once `count` devices are connected (within `timeout_s`).
  bool WaitConnected(int count, double timeout_s = 60);
  // The port a process wrote to `path` (--port_file, --metrics_port_file),
  // waiting up to 20 s for it; 0 if none came.
  static int PortFromFile(const std::string& path);

  // Controller and agent logs, for failure messages.
  std::string Logs() const;

 private:
  bool StartController(const std::string& listen);

  std::string dir_;
  std::vector<std::string> controller_args_;
  std::vector<std::string> controller_prefix_;
  std::string db_dir_;
  int port_ = 0;
  int controller_starts_ = 0;
  std::unique_ptr<Subprocess> controller_;
  std::map<std::string, std::unique_ptr<Subprocess>> agents_;
  std::unique_ptr<v1::Control::Stub> stub_;
};

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_INTEGRATION_LOCAL_FLEET_H_
