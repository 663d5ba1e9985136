#include "workloads/models/state_export.h"

#include <torch/torch.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class StateExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "state_export_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(StateExportTest, NpyHasNumpyHeaderPaddedTo64AndRawLittleEndianData) {
  const std::string path = dir_ + "/t.npy";
  ASSERT_TRUE(WriteNpy(torch::tensor({1.5f, -2.0f, 3.0f}).reshape({3, 1}),
                       path)
                  .ok());
  const std::string bytes = ReadAll(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header_len = static_cast<unsigned char>(bytes[8]) +
                            256 * static_cast<unsigned char>(bytes[9]);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_THAT(header, StartsWith("{'descr': '<f4', 'fortran_order': False, "
                                 "'shape': (3, 1), }"));
  EXPECT_EQ(header.back(), '\n');
  ASSERT_EQ(bytes.size(), 10 + header_len + 12);
  float first;
  std::memcpy(&first, bytes.data() + 10 + header_len, 4);
  EXPECT_EQ(first, 1.5f);
}

TEST_F(StateExportTest, ScalarsAndVectorsUseNumpyShapeTuples) {
  ASSERT_TRUE(WriteNpy(torch::tensor(int64_t{7}), dir_ + "/s.npy").ok());
  EXPECT_THAT(ReadAll(dir_ + "/s.npy"), HasSubstr("'<i8'"));
  EXPECT_THAT(ReadAll(dir_ + "/s.npy"), HasSubstr("'shape': (), }"));
  ASSERT_TRUE(WriteNpy(torch::zeros({5}), dir_ + "/v.npy").ok());
  EXPECT_THAT(ReadAll(dir_ + "/v.npy"), HasSubstr("'shape': (5,), }"));
}

TEST_F(StateExportTest, OtherDtypesAndUnwritablePathsAreErrors) {
  absl::Status st = WriteNpy(torch::zeros({2}, torch::kFloat64), dir_ + "/d");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("not supported"));
  st = WriteNpy(torch::zeros({2}), dir_ + "/no/such/dir/x.npy");
  EXPECT_EQ(st.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(st.message(), HasSubstr("no/such/dir/x.npy"));
}

TEST_F(StateExportTest, ModuleStateListsParametersThenBuffersByDottedName) {
  torch::nn::Sequential net(torch::nn::Linear(3, 2),
                            torch::nn::BatchNorm1d(2));
  ASSERT_TRUE(ExportModuleState(*net, dir_ + "/state").ok());
  EXPECT_EQ(ReadAll(dir_ + "/state/state.txt"),
            "param 0.weight f4 2,3\n"
            "param 0.bias f4 2\n"
            "param 1.weight f4 2\n"
            "param 1.bias f4 2\n"
            "buffer 1.running_mean f4 2\n"
            "buffer 1.running_var f4 2\n"
            "buffer 1.num_batches_tracked i8 -\n");
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/state/0.weight.npy"));
  EXPECT_TRUE(
      std::filesystem::exists(dir_ + "/state/1.num_batches_tracked.npy"));
}

}  // namespace
}  // namespace powersweep
