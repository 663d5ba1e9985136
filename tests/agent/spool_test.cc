#include "agent/session/spool.h"

#include <vector>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

v1::AgentMessage Batch(int64_t run, int64_t seq) {
  v1::AgentMessage m;
  m.mutable_batch()->set_run_id(run);
  m.mutable_batch()->set_seq(seq);
  return m;
}

v1::AgentMessage Finished(int64_t run) {
  v1::AgentMessage m;
  m.mutable_run_finished()->mutable_result()->set_run_id(run);
  return m;
}

std::vector<Spool::Key> Keys(const Spool& spool) {
  std::vector<Spool::Key> keys;
  for (const auto& m : spool.Pending()) keys.push_back(*Spool::KeyOf(m));
  return keys;
}

TEST(Spool, ReplaysUnacknowledgedMessagesInTheOrderAdded) {
  Spool spool;
  ASSERT_TRUE(spool.Add(Batch(7, 1)).ok());
  ASSERT_TRUE(spool.Add(Batch(7, 2)).ok());
  ASSERT_TRUE(spool.Add(Batch(7, 3)).ok());
  ASSERT_TRUE(spool.Add(Finished(7)).ok());
  ASSERT_TRUE(spool.Add(Batch(8, 1)).ok());
  EXPECT_TRUE(spool.Ack(7, 2));
  EXPECT_TRUE(spool.Ack(7, 0));  // the RunFinished
  EXPECT_EQ(Keys(spool), (std::vector<Spool::Key>{{7, 1}, {7, 3}, {8, 1}}));
  EXPECT_EQ(spool.size(), 3u);
}

TEST(Spool, AckOfUnknownOrRepeatedKeyChangesNothing) {
  Spool spool;
  ASSERT_TRUE(spool.Add(Batch(1, 1)).ok());
  EXPECT_FALSE(spool.Ack(1, 2));
  EXPECT_TRUE(spool.Ack(1, 1));
  EXPECT_FALSE(spool.Ack(1, 1));
  EXPECT_EQ(spool.size(), 0u);
}

TEST(Spool, ReAddingAKeyKeepsItsPlace) {
  Spool spool;
  ASSERT_TRUE(spool.Add(Batch(1, 1)).ok());
  ASSERT_TRUE(spool.Add(Batch(1, 2)).ok());
  v1::AgentMessage again = Batch(1, 1);
  again.mutable_batch()->add_minibatches()->set_index(5);
  ASSERT_TRUE(spool.Add(again).ok());
  auto pending = spool.Pending();
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].batch().minibatches_size(), 1);
  EXPECT_EQ(pending[1].batch().seq(), 2);
}

TEST(Spool, RejectsMessagesThatAreNotSpooled) {
  Spool spool;
  v1::AgentMessage hb;
  hb.mutable_heartbeat();
  EXPECT_EQ(spool.Add(hb).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(spool.size(), 0u);
}

}  // namespace
}  // namespace powersweep
