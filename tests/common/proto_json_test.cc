#include "common/proto_json.h"

#include "gtest/gtest.h"
#include "powersweep/v1/records.pb.h"

namespace powersweep {
namespace {

TEST(ProtoJsonTest, MinibatchRoundTripsOnOneLine) {
  v1::WorkloadEvent ev;
  auto* mb = ev.mutable_minibatch();
  mb->set_index(7);
  mb->set_stall_s(0.25);
  mb->set_loss(1.5);
  std::string line = ToJsonLine(ev);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  v1::WorkloadEvent back;
  ASSERT_TRUE(FromJson(line, &back).ok());
  EXPECT_EQ(back.minibatch().index(), 7);
  EXPECT_DOUBLE_EQ(back.minibatch().stall_s(), 0.25);
}

TEST(ProtoJsonTest, UnknownFieldIsRejectedByName) {
  v1::WorkloadEvent ev;
  absl::Status st = FromJson(R"({"bogus_field": 1})", &ev);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bogus_field"), std::string::npos);
}

}  // namespace
}  // namespace powersweep
