// Minimal leveled logging to stderr, one line per call, thread-safe
// (each line is written with a single write(2)).
//
//   PS_LOG(INFO) << "registered " << id;
#ifndef POWERSWEEP_COMMON_LOG_H_
#define POWERSWEEP_COMMON_LOG_H_

#include <sstream>
#include <string>

namespace powersweep {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// Lines below this level are dropped. Default kInfo.
void SetLogLevel(LogLevel level);
// Prefix added to every line, e.g. the binary's name.
void SetLogTag(const std::string& tag);

class LogLine {
 public:
  LogLine(LogLevel level, const char* file, int line);
  ~LogLine();
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};

}  // namespace powersweep

#define PS_LOG_DEBUG ::powersweep::LogLevel::kDebug
#define PS_LOG_INFO ::powersweep::LogLevel::kInfo
#define PS_LOG_WARNING ::powersweep::LogLevel::kWarning
#define PS_LOG_ERROR ::powersweep::LogLevel::kError
#define PS_LOG(level) \
  ::powersweep::LogLine(PS_LOG_##level, __FILE__, __LINE__).stream()

#endif  // POWERSWEEP_COMMON_LOG_H_
