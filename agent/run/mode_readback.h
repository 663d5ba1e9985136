// Whether the requested power mode reads back: after Platform::Apply, each
// knob that was requested (non-zero) and that the platform reports set
// (actual non-zero) must read back as requested, unless a note of the
// applied mode names the knob (a clamp the platform explains, e.g.
// "cpu_freq_khz: requested ..., the kernel set ..."). A preset asks for no
// knob values and is not checked.
#ifndef POWERSWEEP_AGENT_RUN_MODE_READBACK_H_
#define POWERSWEEP_AGENT_RUN_MODE_READBACK_H_

#include <string>

#include "powersweep/v1/device.pb.h"

namespace powersweep {

// "" when every checked knob reads back; else one problem per knob, e.g.
// "cpu_freq_khz: requested 1497600, read back 1190400 with no clamp
// note", joined with "; ".
std::string ModeReadBackProblem(const v1::AppliedPowerMode& applied);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_MODE_READBACK_H_
