#include "agent/trace/tracepoint_format.h"

#include <cstring>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

// writeback:writeback_start as tracefs printed it on this project's
// development VM (Linux 6.18).
constexpr char kWritebackStart[] = R"(name: writeback_start
ID: 995
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:char name[32];	offset:8;	size:32;	signed:0;
	field:long nr_pages;	offset:40;	size:8;	signed:1;
	field:dev_t sb_dev;	offset:48;	size:4;	signed:0;
	field:int sync_mode;	offset:52;	size:4;	signed:1;
	field:int for_kupdate;	offset:56;	size:4;	signed:1;
	field:int range_cyclic;	offset:60;	size:4;	signed:1;
	field:int for_background;	offset:64;	size:4;	signed:1;
	field:int reason;	offset:68;	size:4;	signed:1;
	field:ino_t cgroup_ino;	offset:72;	size:8;	signed:0;

print fmt: "bdi %s: sb_dev %d:%d nr_pages=%ld sync_mode=%d kupdate=%d range_cyclic=%d background=%d reason=%s cgroup_ino=%lu", REC->name, ((unsigned int) ((REC->sb_dev) >> 20)), ((unsigned int) ((REC->sb_dev) & ((1U << 20) - 1))), REC->nr_pages, REC->sync_mode, REC->for_kupdate, REC->range_cyclic, REC->for_background, __print_symbolic(REC->reason, { 0, "background" }, { 1, "vmscan" }, { 2, "sync" }, { 3, "periodic" }, { 4, "laptop_timer" }, { 5, "fs_free_space" }, { 6, "forker_thread" }, { 7, "foreign_flush" }), (unsigned long)REC->cgroup_ino
)";

TEST(TracepointFormatTest, ReadsIdFieldsAndReasonNames) {
  absl::StatusOr<TracepointFormat> f = ParseTracepointFormat(kWritebackStart);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->name, "writeback_start");
  EXPECT_EQ(f->id, 995);
  const TracepointField* reason = f->Field("reason");
  ASSERT_NE(reason, nullptr);
  EXPECT_EQ(reason->offset, 68);
  EXPECT_EQ(reason->size, 4);
  EXPECT_TRUE(reason->is_signed);
  const TracepointField* name = f->Field("name");  // char name[32]
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->size, 32);
  EXPECT_EQ(f->symbols.at("reason").at(3), "periodic");
  EXPECT_EQ(f->symbols.at("reason").at(0), "background");
  EXPECT_EQ(f->symbols.at("reason").size(), 8u);
  EXPECT_EQ(f->Field("nonexistent"), nullptr);
}

TEST(TracepointFormatTest, ReadsFieldsOutOfARawRecord) {
  absl::StatusOr<TracepointFormat> f = ParseTracepointFormat(kWritebackStart);
  ASSERT_TRUE(f.ok()) << f.status();
  uint8_t record[80] = {};
  const int32_t reason = 2;
  const int64_t pages = -5;
  std::memcpy(record + 68, &reason, 4);
  std::memcpy(record + 40, &pages, 8);
  std::memcpy(record + 8, "254:0", 6);
  EXPECT_EQ(ReadField(*f->Field("reason"), record, sizeof(record)), 2);
  EXPECT_EQ(ReadField(*f->Field("nr_pages"), record, sizeof(record)), -5);
  EXPECT_EQ(ReadCharField(*f->Field("name"), record, sizeof(record)), "254:0");
  // A record cut short yields nothing rather than bytes past its end.
  EXPECT_EQ(ReadField(*f->Field("cgroup_ino"), record, 76), std::nullopt);
  EXPECT_EQ(ReadCharField(*f->Field("name"), record, 20), "");
}

TEST(TracepointFormatTest, MalformedTextNamesTheLine) {
  absl::StatusOr<TracepointFormat> no_id =
      ParseTracepointFormat("name: x\nformat:\n");
  EXPECT_FALSE(no_id.ok());
  EXPECT_NE(no_id.status().message().find("no ID line"), std::string::npos);
  absl::StatusOr<TracepointFormat> bad_field = ParseTracepointFormat(
      "name: x\nID: 1\n\tfield:int id;\toffset:abc;\tsize:4;\tsigned:1;\n");
  EXPECT_FALSE(bad_field.ok());
  EXPECT_NE(bad_field.status().message().find("offset:abc"),
            std::string::npos)
      << bad_field.status();
}

}  // namespace
}  // namespace powersweep
