#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <cstring>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace powersweep {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::string* g_tag = new std::string("powersweep");
const char* LevelName(LogLevel l) {
  switch (l) {
    case LogLevel::kDebug: return "D";
    case LogLevel::kInfo: return "I";
    case LogLevel::kWarning: return "W";
    case LogLevel::kError: return "E";
  }
  return "?";
}
}  // namespace

void SetLogLevel(LogLevel level) { g_level = static_cast<int>(level); }
void SetLogTag(const std::string& tag) { *g_tag = tag; }

LogLine::LogLine(LogLevel level, const char* file, int line) : level_(level) {
  const char* base = std::strrchr(file, '/');
  stream_ << LevelName(level) << " "
          << absl::FormatTime("%Y-%m-%dT%H:%M:%E3S", absl::Now(),
                              absl::LocalTimeZone())
          << " " << *g_tag << " " << (base ? base + 1 : file) << ":" << line
          << "] ";
}

LogLine::~LogLine() {
  if (static_cast<int>(level_) < g_level.load()) return;
  stream_ << "\n";
  const std::string s = stream_.str();
  ssize_t ignored = ::write(2, s.data(), s.size());
  (void)ignored;
}

}  // namespace powersweep
