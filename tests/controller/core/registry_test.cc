#include "controller/core/registry.h"

#include <memory>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

class NullConnection : public AgentConnection {
 public:
  bool Send(const v1::ControllerMessage&) override { return true; }
  void Close() override {}
};

AgentEntry Entry(const std::string& id, std::shared_ptr<AgentConnection> conn,
                 absl::Time at) {
  AgentEntry e;
  e.identity.set_device_id(id);
  e.identity.set_device_class("host");
  e.conn = std::move(conn);
  e.last_message = at;
  return e;
}

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

TEST(AgentRegistryTest, PutReplacesTheOlderSessionAndReturnsIt) {
  AgentRegistry reg;
  auto first = std::make_shared<NullConnection>();
  auto second = std::make_shared<NullConnection>();
  EXPECT_EQ(reg.Put(Entry("a", first, kT0)), nullptr);
  EXPECT_EQ(reg.Put(Entry("a", second, kT0)), first);
  ASSERT_EQ(reg.Snapshot().size(), 1u);
  EXPECT_EQ(reg.Get("a")->conn, second);
}

TEST(AgentRegistryTest, StaleSessionCannotRemoveOrChangeTheNewOne) {
  AgentRegistry reg;
  auto first = std::make_shared<NullConnection>();
  auto second = std::make_shared<NullConnection>();
  reg.Put(Entry("a", first, kT0));
  reg.Put(Entry("a", second, kT0));
  EXPECT_FALSE(reg.SetCurrentRun("a", first.get(), 7));
  EXPECT_FALSE(reg.Remove("a", first.get()).has_value());
  EXPECT_EQ(reg.Get("a")->current_run_id, 0);
  EXPECT_TRUE(reg.Remove("a", second.get()).has_value());
  EXPECT_FALSE(reg.Get("a").has_value());
}

TEST(AgentRegistryTest, IdleListsAssignableAgentsWithoutARun) {
  AgentRegistry reg;
  auto a = std::make_shared<NullConnection>();
  auto b = std::make_shared<NullConnection>();
  auto c = std::make_shared<NullConnection>();
  reg.Put(Entry("a", a, kT0));
  reg.Put(Entry("b", b, kT0));
  reg.Put(Entry("c", c, kT0));
  reg.SetCurrentRun("a", a.get(), 3);
  reg.MarkUnassignable("c", c.get());
  auto idle = reg.IdleAgents();
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(idle[0].device_id, "b");
}

TEST(AgentRegistryTest, SilentSinceUsesTheLastMessage) {
  AgentRegistry reg;
  auto b = std::make_shared<NullConnection>();
  reg.Put(Entry("a", std::make_shared<NullConnection>(), kT0));
  reg.Put(Entry("b", b, kT0));
  EXPECT_TRUE(reg.Touch("b", b.get(), kT0 + absl::Seconds(5)));
  EXPECT_FALSE(reg.Touch("ghost", b.get(), kT0));
  auto silent = reg.SilentSince(kT0 + absl::Seconds(1));
  ASSERT_EQ(silent.size(), 1u);
  EXPECT_EQ(silent[0].identity.device_id(), "a");
}

// While the controller handles an agent's message (a batch waiting for a
// locked database), the agent is not silent however long that takes;
// once handled it is heard at that time. A stale session's handling
// changes nothing.
TEST(AgentRegistryTest, AnAgentWhoseMessageIsBeingHandledIsNotSilent) {
  AgentRegistry reg;
  auto a = std::make_shared<NullConnection>();
  reg.Put(Entry("a", a, kT0));
  reg.Touch("a", a.get(), kT0 + absl::Seconds(1), +1);
  EXPECT_TRUE(reg.SilentSince(kT0 + absl::Seconds(60)).empty());
  auto stale = std::make_shared<NullConnection>();
  reg.Touch("a", stale.get(), kT0 + absl::Seconds(2), -1);
  EXPECT_TRUE(reg.SilentSince(kT0 + absl::Seconds(60)).empty());
  reg.Touch("a", a.get(), kT0 + absl::Seconds(8), -1);
  EXPECT_TRUE(reg.SilentSince(kT0 + absl::Seconds(7)).empty());
  ASSERT_EQ(reg.SilentSince(kT0 + absl::Seconds(9)).size(), 1u);
}

}  // namespace
}  // namespace powersweep
