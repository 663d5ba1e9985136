#include "common/power_mode_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace powersweep {
namespace {

std::string Mhz(double mhz) { return absl::StrFormat("%.6gMHz", mhz); }

}  // namespace

std::string PowerModeText(const ::powersweep::v1::PowerMode& m,
                          absl::string_view when_empty) {
  std::vector<std::string> parts;
  if (!m.preset().empty()) parts.push_back(m.preset());
  if (m.cpu_cores() != 0) {
    parts.push_back(absl::StrCat("cores=", m.cpu_cores()));
  }
  if (m.cpu_freq_khz() != 0) {
    parts.push_back("cpu=" + Mhz(m.cpu_freq_khz() / 1e3));
  }
  if (m.gpu_freq_hz() != 0)
    parts.push_back("gpu=" + Mhz(m.gpu_freq_hz() / 1e6));
  if (m.mem_freq_hz() != 0)
    parts.push_back("mem=" + Mhz(m.mem_freq_hz() / 1e6));
  if (m.gpu_power_limit_w() != 0) {
    parts.push_back(absl::StrCat("gpu_limit=", m.gpu_power_limit_w(), "W"));
  }
  if (parts.empty()) return std::string(when_empty);
  return absl::StrJoin(parts, " ");
}

}  // namespace powersweep
