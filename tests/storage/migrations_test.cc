#include "storage/migrations.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

TEST(MigrationsTest, NewFileRecordsEveryMigrationAndHasTheTables) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  ASSERT_NE(OpenStore(path), nullptr);

  RawConnection raw(path);
  const int64_t known = static_cast<int64_t>(Migrations().size());
  EXPECT_EQ(raw.Int("SELECT MAX(version) FROM schema_migrations"), known);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM schema_migrations"), known);
  EXPECT_GT(raw.Int("SELECT MIN(applied_unix_ms) FROM schema_migrations"),
            1'600'000'000'000);
  for (const char* table : {"devices", "sweeps", "runs", "run_state_history", "batches",
                            "minibatches", "telemetry", "run_results"}) {
    EXPECT_EQ(raw.Int(absl::StrCat("SELECT COUNT(*) FROM sqlite_master WHERE type = "
                                   "'table' AND name = '",
                                   table, "'")),
              1)
        << table;
  }
}

TEST(MigrationsTest, UpToDateFileAppliesNothing) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  auto db = SqliteDb::Open(path, /*read_only=*/false);
  ASSERT_TRUE(db.ok()) << db.status();
  auto first = ApplyMigrations(**db);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, static_cast<int>(Migrations().size()));
  auto second = ApplyMigrations(**db);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, 0);
  db->reset();

  RawConnection raw(path);
  const int64_t applied_at = raw.Int("SELECT MAX(applied_unix_ms) FROM schema_migrations");
  ASSERT_NE(OpenStore(path), nullptr);  // reopening through the store
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM schema_migrations"),
            static_cast<int64_t>(Migrations().size()));
  EXPECT_EQ(raw.Int("SELECT MAX(applied_unix_ms) FROM schema_migrations"), applied_at);
}

TEST(MigrationsTest, FileFromNewerSchemaIsRefused) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  ASSERT_NE(OpenStore(path), nullptr);
  const int64_t newer = static_cast<int64_t>(Migrations().size()) + 1;
  {
    RawConnection raw(path, /*read_only=*/false);
    ASSERT_TRUE(raw.Exec(absl::StrCat("INSERT INTO schema_migrations VALUES (", newer,
                                      ", 1)"))
                    .ok());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr(path));
  EXPECT_THAT(store.status().message(),
              HasSubstr(absl::StrCat("schema version ", newer, ", newer")));
}

TEST(MigrationsTest, MissingFolderIsRefusedNamingThePath) {
  TempDir dir;
  const std::string path = dir.path() + "/no-such-folder/store.db";
  auto store = SqliteStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(store.status().message(), HasSubstr(path));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/no-such-folder"));
}

TEST(MigrationsTest, OpenLeavesTheFileInWalMode) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  RawConnection raw(path);
  EXPECT_EQ(raw.Text("PRAGMA journal_mode"), "wal");
}

}  // namespace
}  // namespace powersweep
