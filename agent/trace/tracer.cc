#include "agent/trace/tracer.h"

namespace powersweep {
namespace {

class UnsupportedSession : public TraceSession {
 public:
  UnsupportedSession(const std::vector<v1::Trace>& kinds,
                     const std::string& reason) {
    for (v1::Trace k : kinds) {
      traces_.add_requested(k);
      v1::TraceMissing* m = traces_.add_missing();
      m->set_kind(k);
      m->set_reason(reason);
    }
  }
  v1::RunTraces Stop() override { return traces_; }

 private:
  v1::RunTraces traces_;
};

}  // namespace

std::unique_ptr<TraceSession> UnsupportedTracer::Start(
    const std::vector<v1::Trace>& kinds, const std::vector<int>& /*pids*/) {
  return std::make_unique<UnsupportedSession>(kinds, reason_);
}

}  // namespace powersweep
