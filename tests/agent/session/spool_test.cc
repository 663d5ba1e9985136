#include "agent/session/spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;

v1::AgentMessage Batch(int64_t run, int64_t seq, int32_t attempt = 1) {
  v1::AgentMessage m;
  m.mutable_batch()->set_run_id(run);
  m.mutable_batch()->set_seq(seq);
  m.mutable_batch()->set_attempt(attempt);
  m.mutable_batch()->add_minibatches()->set_index(seq * 10);
  return m;
}

v1::AgentMessage Finished(int64_t run, int64_t batches = 0,
                          int32_t attempt = 1) {
  v1::AgentMessage m;
  m.mutable_run_finished()->mutable_result()->set_run_id(run);
  m.mutable_run_finished()->set_batches(batches);
  m.mutable_run_finished()->set_attempt(attempt);
  return m;
}

std::vector<std::string> Keys(const Spool& spool) {
  std::vector<std::string> keys;
  for (const auto& m : spool.Pending()) {
    Spool::Key k = *Spool::KeyOf(m);
    keys.push_back(std::to_string(k.run_id) + "/" + std::to_string(k.attempt) +
                   "/" + std::to_string(k.seq));
  }
  return keys;
}

std::string TempPath(const std::string& name) {
  std::string path = testing::TempDir() + "/spool_test_" + name;
  std::remove(path.c_str());
  return path;
}

TEST(Spool, ReplaysUnacknowledgedMessagesInTheOrderAdded) {
  Spool spool;
  ASSERT_TRUE(spool.Add(Batch(7, 1)).ok());
  ASSERT_TRUE(spool.Add(Batch(7, 2)).ok());
  ASSERT_TRUE(spool.Add(Batch(7, 3)).ok());
  ASSERT_TRUE(spool.Add(Finished(7)).ok());
  ASSERT_TRUE(spool.Add(Batch(8, 1)).ok());
  EXPECT_TRUE(spool.Ack(7, 1, 2));
  EXPECT_TRUE(spool.Ack(7, 1, 0));  // the RunFinished
  EXPECT_THAT(Keys(spool), ElementsAre("7/1/1", "7/1/3", "8/1/1"));
  EXPECT_EQ(spool.size(), 3u);
}

TEST(Spool, AnAckOfAnotherAttemptLeavesTheMessage) {
  Spool spool;
  ASSERT_TRUE(spool.Add(Batch(7, 1, /*attempt=*/1)).ok());
  ASSERT_TRUE(spool.Add(Batch(7, 1, /*attempt=*/2)).ok());
  EXPECT_TRUE(spool.Ack(7, 2, 1));
  EXPECT_THAT(Keys(spool), ElementsAre("7/1/1"));
  EXPECT_FALSE(spool.Ack(7, 2, 1));
  // Attempt 0 (an older controller) matches any attempt.
  EXPECT_TRUE(spool.Ack(7, 0, 1));
  EXPECT_EQ(spool.size(), 0u);
}

TEST(Spool, AckOfUnknownOrRepeatedKeyChangesNothing) {
  Spool spool;
  ASSERT_TRUE(spool.Add(Batch(1, 1)).ok());
  EXPECT_FALSE(spool.Ack(1, 1, 2));
  EXPECT_TRUE(spool.Ack(1, 1, 1));
  EXPECT_FALSE(spool.Ack(1, 1, 1));
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
  EXPECT_EQ(pending[0].batch().minibatches_size(), 2);
  EXPECT_EQ(pending[1].batch().seq(), 2);
}

TEST(Spool, RejectsMessagesThatAreNotSpooled) {
  Spool spool;
  v1::AgentMessage hb;
  hb.mutable_heartbeat();
  EXPECT_EQ(spool.Add(hb).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(spool.size(), 0u);
}

TEST(Spool, OverdueMessagesAreDueAgainAndMarkedSent) {
  Spool spool;
  ASSERT_TRUE(spool.Add(Batch(1, 1), /*now_ns=*/100).ok());
  ASSERT_TRUE(spool.Add(Batch(1, 2), /*now_ns=*/900).ok());
  EXPECT_TRUE(spool.TakeDue(1000, 500).size() == 1u);  // only seq 1
  EXPECT_TRUE(spool.TakeDue(1000, 500).empty());       // just resent
  EXPECT_EQ(spool.TakeDue(2000, 500).size(), 2u);
}

TEST(Spool, SelectsTheAskedForBatchesAndSummarizesProgress) {
  Spool spool;
  for (int seq = 1; seq <= 4; ++seq) ASSERT_TRUE(spool.Add(Batch(3, seq)).ok());
  ASSERT_TRUE(spool.Add(Finished(3, 4)).ok());
  ASSERT_TRUE(spool.Add(Batch(5, 1, 2)).ok());
  auto picked = spool.Select(3, 1, {2, 4, 9});
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0].batch().seq(), 2);
  EXPECT_EQ(picked[1].batch().seq(), 4);

  auto progress = spool.Progress();
  ASSERT_EQ(progress.size(), 2u);
  EXPECT_EQ(progress[0].run_id(), 3);
  EXPECT_TRUE(progress[0].finished());
  EXPECT_EQ(progress[0].last_seq(), 4);
  EXPECT_EQ(progress[1].run_id(), 5);
  EXPECT_EQ(progress[1].attempt(), 2);
  EXPECT_FALSE(progress[1].finished());
  EXPECT_EQ(progress[1].last_seq(), 1);
}

TEST(DurableSpool, UnacknowledgedMessagesSurviveARestart) {
  const std::string path = TempPath("restart");
  {
    auto spool = Spool::Open(path);
    ASSERT_TRUE(spool.ok()) << spool.status();
    for (int seq = 1; seq <= 3; ++seq) {
      ASSERT_TRUE((*spool)->Add(Batch(9, seq)).ok());
    }
    ASSERT_TRUE((*spool)->Add(Finished(9, 3)).ok());
    EXPECT_TRUE((*spool)->Ack(9, 1, 1));
    // The process dies here: no destructor flush is needed.
  }
  auto again = Spool::Open(path);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_THAT(Keys(**again), ElementsAre("9/1/2", "9/1/3", "9/1/0"));
  EXPECT_EQ((*again)->Pending()[0].batch().minibatches(0).index(), 20);

  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // Once everything is acknowledged the file is emptied.
  EXPECT_TRUE((*again)->Ack(9, 1, 2));
  EXPECT_TRUE((*again)->Ack(9, 1, 3));
  EXPECT_TRUE((*again)->Ack(9, 1, 0));
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
}

TEST(DurableSpool, ARecordCutShortByACrashIsDropped) {
  const std::string path = TempPath("torn");
  {
    auto spool = Spool::Open(path);
    ASSERT_TRUE(spool.ok());
    ASSERT_TRUE((*spool)->Add(Batch(4, 1)).ok());
    ASSERT_TRUE((*spool)->Add(Batch(4, 2)).ok());
  }
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_EQ(truncate(path.c_str(), st.st_size - 3), 0);  // a torn write
  auto spool = Spool::Open(path);
  ASSERT_TRUE(spool.ok()) << spool.status();
  EXPECT_THAT(Keys(**spool), ElementsAre("4/1/1"));
  // It keeps appending after the last good record.
  ASSERT_TRUE((*spool)->Add(Batch(4, 3)).ok());
  auto reread = Spool::Open(path);
  ASSERT_TRUE(reread.ok());
  EXPECT_THAT(Keys(**reread), ElementsAre("4/1/1", "4/1/3"));
}

TEST(DurableSpool, GarbageInTheFileIsNotReplayed) {
  const std::string path = TempPath("garbage");
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("this is not a spool record at all, just text", f);
  std::fclose(f);
  auto spool = Spool::Open(path);
  ASSERT_TRUE(spool.ok()) << spool.status();
  EXPECT_EQ((*spool)->size(), 0u);
}

TEST(DurableSpool, ASymlinkIsRefused) {
  const std::string target = TempPath("target");
  const std::string link = TempPath("link");
  FILE* f = std::fopen(target.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  auto spool = Spool::Open(link);
  EXPECT_FALSE(spool.ok());
}

TEST(DurableSpool, DataOfAnotherControllerDatabaseIsDroppedNotReplayed) {
  const std::string path = TempPath("database");
  {
    auto spool = Spool::Open(path);
    ASSERT_TRUE(spool.ok());
    EXPECT_EQ((*spool)->BindDatabase("db-one"), 0u);
    ASSERT_TRUE((*spool)->Add(Batch(3, 1)).ok());
  }
  {
    // Same database after a restart: the batch is replayed.
    auto spool = Spool::Open(path);
    ASSERT_TRUE(spool.ok());
    EXPECT_EQ((*spool)->BindDatabase("db-one"), 0u);
    EXPECT_THAT(Keys(**spool), ElementsAre("3/1/1"));
  }
  // A controller with a new database: run 3 there is another run.
  auto spool = Spool::Open(path);
  ASSERT_TRUE(spool.ok());
  EXPECT_EQ((*spool)->BindDatabase("db-two"), 1u);
  EXPECT_EQ((*spool)->size(), 0u);
  ASSERT_TRUE((*spool)->Add(Batch(3, 1)).ok());
  auto reread = Spool::Open(path);
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ((*reread)->BindDatabase("db-two"), 0u);
  EXPECT_THAT(Keys(**reread), ElementsAre("3/1/1"));
}

}  // namespace
}  // namespace powersweep
