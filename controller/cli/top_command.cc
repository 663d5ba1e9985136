#include "controller/cli/top_command.h"

#include <chrono>
#include <ostream>
#include <thread>

#include "controller/cli/top_view.h"

namespace powersweep {

int CmdTop(v1::Control::StubInterface* stub, const CliOptions& opt,
           int iterations, bool tty, std::ostream& out, std::ostream& err) {
  const bool table = opt.format == OutputFormat::kTable;
  if (!table) iterations = 1;
  for (int frame = 0; iterations <= 0 || frame < iterations; ++frame) {
    if (frame > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(
          static_cast<int64_t>(opt.interval_s * 1000)));
    }
    v1::ListDevicesResponse devices;
    auto ctx = RpcContext(10);
    grpc::Status st = stub->ListDevices(ctx.get(), {}, &devices);
    if (!st.ok()) return ReportRpcError(st, opt, err);
    const absl::Time now = absl::Now();
    if (!table) {
      out << RenderTable(TopTable(devices, now), opt.format);
      return kExitOk;
    }
    v1::ListSweepsResponse sweeps;
    auto sweeps_ctx = RpcContext(10);
    st = stub->ListSweeps(sweeps_ctx.get(), {}, &sweeps);
    if (!st.ok()) return ReportRpcError(st, opt, err);
    if (tty) {
      out << "\033[H\033[2J";  // home, clear screen
    } else if (frame > 0) {
      out << "\n";
    }
    out << TopHeader(opt.controller, devices, sweeps, now,
                     absl::LocalTimeZone())
        << "\n\n"
        << RenderTable(TopTable(devices, now), OutputFormat::kTable);
    if (tty) out << "\n(refreshing every " << opt.interval_s << " s; Ctrl-C quits)";
    out << std::flush;
  }
  if (tty) out << "\n";
  return kExitOk;
}

}  // namespace powersweep
