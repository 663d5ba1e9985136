// Control.Variability and Control.Compare --by device through the real
// ControlService on a loopback gRPC server (wired as controller/main.cc
// does, over a MemoryStore holding instance_sweep.h's four boards), with a
// bearer token: the answers a CLI gets, the errors it gets, and the CLI's
// `variability` command on that channel.
#include <cmath>
#include <memory>
#include <sstream>
#include <string>

#include "common/fake_clock.h"
#include "controller/cli/commands.h"
#include "controller/core/fleet.h"
#include "controller/service/control_auth.h"
#include "controller/service/control_service.h"
#include "controller/sweep/submitter.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "storage/memory_store.h"
#include "tests/controller/analysis/instance_sweep.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

constexpr char kToken[] = "0123456789abcdef0123456789abcdef";

class ControlVariabilityTest : public ::testing::Test {
 protected:
  ControlVariabilityTest()
      : auth_(ControlAuthOptions{kToken, false}),
        fleet_(&store_, &clock_, FleetOptions()),
        submitter_(&store_, &clock_),
        service_(&store_, &fleet_, &submitter_, &clock_,
                 ControlServiceOptions{&auth_}) {}

  void SetUp() override {
    sweep_ = testing::StoreInstanceSweep(&store_);
    ASSERT_GT(sweep_, 0);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(port, 0);
    address_ = "127.0.0.1:" + std::to_string(port);
    stub_ = v1::Control::NewStub(grpc::CreateChannel(
        address_, grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    if (server_) server_->Shutdown();
  }

  std::unique_ptr<grpc::ClientContext> Context(bool with_token = true) {
    auto ctx = std::make_unique<grpc::ClientContext>();
    if (with_token) {
      ctx->AddMetadata("authorization", std::string("Bearer ") + kToken);
    }
    return ctx;
  }

  FakeClock clock_;
  MemoryStore store_;
  ControlAuthenticator auth_;
  Fleet fleet_;
  SweepSubmitter submitter_;
  ControlService service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::unique_ptr<v1::Control::Stub> stub_;
  int64_t sweep_ = 0;
};

TEST_F(ControlVariabilityTest, ReportsTheSlowBoardAsTheOutlier) {
  v1::VariabilityRequest req;
  req.set_sweep_id(sweep_);
  v1::VariabilityResponse resp;
  grpc::Status st = stub_->Variability(Context().get(), req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.sweep_id(), sweep_);
  ASSERT_EQ(resp.cells_size(), 2);
  const v1::VariabilityCell& cell = resp.cells(0);
  EXPECT_EQ(cell.device_ids_size(), 4);
  ASSERT_GT(cell.metrics_size(), 0);
  const v1::VariabilityMetricReport& mb = cell.metrics(0);
  EXPECT_EQ(mb.name(), "minibatch_time");
  ASSERT_EQ(mb.devices_size(), 4);
  for (int d = 0; d < 4; ++d) {
    EXPECT_NEAR(mb.devices(d).mean(), testing::kInstanceMeanMs[d], 1e-9);
    EXPECT_EQ(mb.devices(d).outlier(), d == 3);
  }
  EXPECT_THAT(mb.across().outlier_devices(), ::testing::ElementsAre("xavier-3"));
  EXPECT_NEAR(mb.across().sd_within(), 1, 1e-9);
  EXPECT_NEAR(mb.across().cv_percent(), 100 * std::sqrt(170.75 / 3) / 103.75,
              1e-9);
  EXPECT_THAT(resp.method(), HasSubstr("ANOVA"));
}

TEST_F(ControlVariabilityTest, OneMetricByName) {
  v1::VariabilityRequest req;
  req.set_sweep_id(sweep_);
  req.set_metric("mean-power");
  v1::VariabilityResponse resp;
  ASSERT_TRUE(stub_->Variability(Context().get(), req, &resp).ok());
  for (const v1::VariabilityCell& cell : resp.cells()) {
    ASSERT_EQ(cell.metrics_size(), 1);
    EXPECT_EQ(cell.metrics(0).name(), "mean_power");
  }
}

TEST_F(ControlVariabilityTest, SaveOffsetsStoresTimeAndEnergyOfEveryDevice) {
  v1::VariabilityRequest req;
  req.set_sweep_id(sweep_);
  req.set_metric("throughput");  // the offsets still come from every metric
  req.set_save_offsets(true);
  v1::VariabilityResponse resp;
  grpc::Status st = stub_->Variability(Context().get(), req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.cells(0).metrics_size(), 1);
  EXPECT_EQ(resp.saved_offsets_size(), 8);
  auto stored = store_.ListDeviceOffsets("xavier-3");
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[1].metric(), "time");
  EXPECT_NEAR((*stored)[1].factor(), 115 / 103.75, 1e-9);
  EXPECT_EQ((*stored)[1].sweep_id(), sweep_);
  EXPECT_EQ((*stored)[1].saved_unix_ms(), absl::ToUnixMillis(clock_.Now()));

  // Without save_offsets nothing is written.
  v1::VariabilityResponse plain;
  req.set_save_offsets(false);
  ASSERT_TRUE(store_.SaveDeviceOffsets({}).ok());
  ASSERT_TRUE(stub_->Variability(Context().get(), req, &plain).ok());
  EXPECT_EQ(plain.saved_offsets_size(), 0);
}

TEST_F(ControlVariabilityTest, ErrorsNameWhatIsWrong) {
  v1::VariabilityRequest req;
  req.set_sweep_id(sweep_);
  v1::VariabilityResponse resp;
  grpc::Status st = stub_->Variability(Context(false).get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED);

  req.set_metric("latency");
  st = stub_->Variability(Context().get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(st.error_message(), HasSubstr("--metric"));

  req.set_metric("");
  req.set_sweep_id(sweep_ + 100);
  st = stub_->Variability(Context().get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(ControlVariabilityTest, CompareByDeviceSidesAreTheNamedBoards) {
  v1::CompareRequest req;
  req.set_sweep_id(sweep_);
  req.set_by("device");
  req.add_devices("xavier-0");
  req.add_devices("xavier-3");
  v1::CompareResponse resp;
  grpc::Status st = stub_->Compare(Context().get(), req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  const v1::Table& t = resp.table();
  ASSERT_GE(t.header_size(), 13);
  EXPECT_EQ(t.header(3), "n xavier-0");
  EXPECT_EQ(t.header(6), "n xavier-3");
  ASSERT_GT(t.rows_size(), 0);
  const v1::TableRow& first = t.rows(0);  // the train cell, minibatch time
  EXPECT_EQ(first.cells(1), "minibatch time");
  EXPECT_EQ(first.cells(4), "100");
  EXPECT_EQ(first.cells(7), "115");
  EXPECT_EQ(first.cells(9), "+15.00");
  EXPECT_EQ(first.cells(12), "yes");
  EXPECT_THAT(resp.warnings(),
              ::testing::Contains(HasSubstr(
                  "runs on other devices than xavier-0 and xavier-3")));

  req.clear_devices();
  req.add_devices("xavier-0");
  st = stub_->Compare(Context().get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(st.error_message(), HasSubstr("--devices A,B"));
}

TEST_F(ControlVariabilityTest, CliCommandPrintsJsonThatParses) {
  // The CLI's stub sends no token: a service without an authenticator.
  ControlService open(&store_, &fleet_, &submitter_, &clock_);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&open);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  auto stub = v1::Control::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(port),
      grpc::InsecureChannelCredentials()));
  CliOptions opt;
  opt.sweep_id = sweep_;
  opt.format = OutputFormat::kJson;
  std::ostringstream out, err;
  EXPECT_EQ(CmdVariability(stub.get(), opt, out, err), kExitOk) << err.str();
  google::protobuf::Struct doc;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(out.str(), &doc).ok())
      << out.str();
  EXPECT_EQ(doc.fields().at("cells").list_value().values_size(), 2);

  opt.format = OutputFormat::kTable;
  opt.metric = "minibatch_time";
  out.str("");
  EXPECT_EQ(CmdVariability(stub.get(), opt, out, err), kExitOk);
  EXPECT_THAT(out.str(), HasSubstr("outliers: xavier-3"));
  EXPECT_THAT(out.str(), ::testing::Not(HasSubstr("mean power")));

  opt.metric = "latency";
  EXPECT_EQ(CmdVariability(stub.get(), opt, out, err), kExitFailed);
  EXPECT_THAT(err.str(), HasSubstr("unknown metric"));
  server->Shutdown();
}

}  // namespace
}  // namespace powersweep
