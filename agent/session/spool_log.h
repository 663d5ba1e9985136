// SpoolLog: the file behind the agent's Spool, so unacknowledged data
// survives an agent restart (a crash, a reboot, kill -9).
//
// Format: a sequence of records, each
//   u32 length (little-endian) | u32 CRC-32 of the payload | payload
// where the payload's first byte is the record type:
//   'A' + a serialized AgentMessage (a spooled DataBatch or RunFinished)
//   'K' + run_id (i64) + attempt (i32) + seq (i64), little-endian: an ack.
//   'D' + the controller database's id: what the following adds belong to.
// Reading stops at the first record that is truncated or fails its CRC (a
// write cut short by a crash); the file is cut back to the last good record.
//
// Adds are made durable (fdatasync) before Append returns; acks are not
// (a lost ack only causes a resend, which the controller ignores).
// The file is opened with O_NOFOLLOW and created 0600.
//
// Not thread-safe: the Spool serializes calls.
#ifndef POWERSWEEP_AGENT_SESSION_SPOOL_LOG_H_
#define POWERSWEEP_AGENT_SESSION_SPOOL_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "powersweep/v1/agent_gateway.pb.h"

namespace powersweep {

struct SpoolKey {
  int64_t run_id = 0;
  int32_t attempt = 0;
  int64_t seq = 0;  // 0: the run's RunFinished
  friend bool operator<(const SpoolKey& a, const SpoolKey& b) {
    if (a.run_id != b.run_id) return a.run_id < b.run_id;
    if (a.attempt != b.attempt) return a.attempt < b.attempt;
    return a.seq < b.seq;
  }
  friend bool operator==(const SpoolKey& a, const SpoolKey& b) {
    return a.run_id == b.run_id && a.attempt == b.attempt && a.seq == b.seq;
  }
};

// One record read back from the file.
struct SpoolRecord {
  bool is_ack = false;
  bool is_database = false;
  std::string database_id;  // database records
  SpoolKey key;             // acks
  v1::AgentMessage message;  // adds
};

class SpoolLog {
 public:
  // Opens (creating) `path` and reads every good record into *records.
  static absl::StatusOr<std::unique_ptr<SpoolLog>> Open(
      const std::string& path, std::vector<SpoolRecord>* records);
  ~SpoolLog();
  SpoolLog(const SpoolLog&) = delete;
  SpoolLog& operator=(const SpoolLog&) = delete;

  // Appends an add, durable on return.
  absl::Status AppendAdd(const v1::AgentMessage& msg);
  // Appends an ack (not synced).
  absl::Status AppendAck(const SpoolKey& key);
  // Appends the database id the following adds belong to (synced).
  absl::Status AppendDatabase(const std::string& database_id);
  // Replaces the whole file by `database_id` (if not empty) and the adds
  // of `pending` (atomic rename).
  absl::Status Rewrite(const std::string& database_id,
                       const std::vector<v1::AgentMessage>& pending);
  // Empties the file.
  absl::Status Clear();

  int64_t size_bytes() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  SpoolLog(std::string path, int fd, int64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  absl::Status Append(const std::string& payload, bool sync);

  const std::string path_;
  int fd_;
  int64_t size_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_SESSION_SPOOL_LOG_H_
