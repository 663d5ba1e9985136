// What an agent sends is checked before it is stored: every floating-point
// number of a DataBatch or a RunResult must be finite and within the range
// its field can hold (a table by field name: energies and durations are
// not negative, powers below 100 kW, temperatures above absolute zero;
// other fields within +/-1e30, which only NaN-like garbage exceeds), and a
// batch's sequence number must be positive. A failure names the field by
// its path ("minibatches[3].compute_s is NaN") — the run then fails with
// that reason (controller/core/ingest.cc); nothing of it is stored.
//
// Pure functions; protobuf reflection, so a field added to the messages is
// checked (finite, +/-1e30) without touching this file.
#ifndef POWERSWEEP_CONTROLLER_CORE_AGENT_DATA_CHECK_H_
#define POWERSWEEP_CONTROLLER_CORE_AGENT_DATA_CHECK_H_

#include "absl/status/status.h"
#include "powersweep/v1/agent_gateway.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

// InvalidArgument naming the first bad value, else OK.
absl::Status CheckAgentBatch(const v1::DataBatch& batch);
absl::Status CheckAgentResult(const v1::RunResult& result);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_AGENT_DATA_CHECK_H_
