#include "controller/cli/best_verify.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/power_mode_text.h"
#include "common/workload_label.h"
#include "controller/cli/model_tables.h"
#include "grpcpp/grpcpp.h"

namespace powersweep {
namespace {

using model_tables::Figures;
using model_tables::Num;
using model_tables::TimeUnit;

// FitModelsRequest.instances for a model's WorkloadModel.instances.
std::string FitInstances(const v1::WorkloadModel& m) {
  return m.instances() == "device" ? "per_device" : m.instances();
}

bool SameKnobs(const v1::PowerMode& a, const v1::PowerMode& b) {
  return a.cpu_cores() == b.cpu_cores() &&
         a.cpu_freq_khz() == b.cpu_freq_khz() &&
         a.gpu_freq_hz() == b.gpu_freq_hz() &&
         a.mem_freq_hz() == b.mem_freq_hz();
}

// The request's one budget: its limit, its name and the figure of a
// prediction it is on.
struct Budget {
  double limit = 0;
  const char* what = "";
  double (v1::ModePrediction::*figure)() const = nullptr;
  double Of(const v1::ModePrediction& p) const { return (p.*figure)(); }
};
Budget BudgetOf(const v1::BestRequest& r) {
  if (r.max_epoch_time_s() > 0) {
    return {r.max_epoch_time_s(), "epoch time",
            &v1::ModePrediction::epoch_time_s};
  }
  if (r.max_power_w() > 0) {
    return {r.max_power_w(), "mean power", &v1::ModePrediction::power_w};
  }
  return {r.max_energy_j(), "epoch energy",
          &v1::ModePrediction::epoch_energy_j};
}

}  // namespace

v1::SweepSpec VerificationSweep(const v1::RunSpec& like,
                                const std::vector<v1::PowerMode>& modes,
                                const std::string& device,
                                const std::string& name) {
  const v1::WorkloadSpec& w = like.workload();
  v1::SweepSpec s;
  s.set_name(name);
  s.add_device_classes(like.device_class());
  s.add_models(w.model());
  s.add_datasets(w.dataset());
  s.add_tasks(w.task());
  s.add_batch_sizes(w.batch_size());
  s.add_loader_workers(w.loader_workers());
  s.add_runtimes(like.runtime());
  s.add_tenants(std::max(1, like.tenants()));
  for (const v1::PowerMode& m : modes) {
    v1::PowerMode knobs;  // as the model knows it: the knobs, no preset
    knobs.set_cpu_cores(m.cpu_cores());
    knobs.set_cpu_freq_khz(m.cpu_freq_khz());
    knobs.set_gpu_freq_hz(m.gpu_freq_hz());
    knobs.set_mem_freq_hz(m.mem_freq_hz());
    *s.add_power_modes() = knobs;
  }
  s.set_repetitions(1);
  s.set_epochs(w.epochs());
  s.set_minibatches(w.minibatches());
  s.set_duration_s(w.duration_s());
  s.set_seed(w.seed());
  s.set_threads(w.threads());
  s.add_prefetch_depths(w.prefetch_depth());
  s.add_page_cache(w.page_cache());
  s.set_preload(w.preload());
  s.set_input_size(w.input_size());
  s.set_seq_len(w.seq_len());
  s.set_vocab(w.vocab());
  s.set_telemetry_hz(like.telemetry_hz());
  s.set_timeout_s(like.timeout_s());
  s.set_container_image(like.container_image());
  if (like.has_settle()) *s.mutable_settle() = like.settle();
  if (like.has_vm()) *s.mutable_vm() = like.vm();
  if (!device.empty()) {
    s.add_devices(device);
  } else {
    *s.mutable_devices() = like.devices();
  }
  return s;
}

namespace {

// One RPC with the CLI's error reporting: false (and `code` set) on error.
template <typename Call>
bool Rpc(Call call, double deadline_s, const CliOptions& opt,
         std::ostream& err, int* code) {
  auto ctx = RpcContext(deadline_s);
  grpc::Status st = call(ctx.get());
  if (st.ok()) return true;
  *code = ReportRpcError(st, opt, err);
  return false;
}

// A run of `model` to run the verification like, in *like; false (and
// *code set, the error printed) when none is found.
bool FindRunLike(v1::Control::StubInterface* stub,
                 const v1::WorkloadModel& model, const CliOptions& opt,
                 std::ostream& err, v1::RunSpec* like, int* code) {
  v1::ListRunsRequest list;
  list.set_sweep_id(model.sweep_id());
  v1::ListRunsResponse runs;
  if (!Rpc([&](grpc::ClientContext* c) {
        return stub->ListRuns(c, list, &runs);
      }, 60, opt, err, code)) {
    return false;
  }
  const std::set<int64_t> ids(model.run_ids().begin(), model.run_ids().end());
  for (const v1::RunStatus& r : runs.runs()) {
    if (ids.count(r.spec().run_id())) {
      *like = r.spec();
      return true;
    }
  }
  err << "error: best --verify: no run of model " << model.model_id()
      << " found in sweep " << model.sweep_id() << " to run the candidates "
      << "like\n";
  *code = kExitFailed;
  return false;
}

}  // namespace

int CmdBestVerify(v1::Control::StubInterface* stub,
                  const v1::BestRequest& request, int rounds,
                  const CliOptions& opt, std::ostream& out,
                  std::ostream& err) {
  int code = kExitOk;
  const Budget budget = BudgetOf(request);
  v1::BestRequest ask = request;
  ask.set_candidates(rounds + 1);
  v1::WorkloadModel model;    // the latest fit
  v1::RunSpec like;
  std::vector<int64_t> sweeps;
  int verification_runs = 0, profiled_runs = 0;
  bool failed_run = false;
  std::string first_pick;
  for (int round = 1; round <= rounds; ++round) {
    // The model's pick, or its next best candidate when the pick is
    // already measured.
    v1::BestResponse predicted;
    if (!Rpc([&](grpc::ClientContext* c) {
          return stub->Best(c, ask, &predicted);
        }, 120, opt, err, &code)) {
      return code;
    }
    const std::string unit = TimeUnit(predicted.model());
    if (round == 1) {
      model = predicted.model();
      profiled_runs = model.run_ids_size();
      for (int64_t id : model.sweep_ids()) sweeps.push_back(id);
      if (sweeps.empty()) sweeps.push_back(model.sweep_id());
      first_pick = PowerModeText(predicted.best().mode(), "-");
      out << "best --verify for " << WorkloadLabel(model) << ": "
          << predicted.objective() << "\n"
          << "  model " << model.model_id() << " (" << SweepsText(model)
          << ", " << model.run_ids_size() << " runs at "
          << model.measured_size() << " modes); up to " << rounds
          << " verification run(s), one mode a round, each refitted\n";
      if (!FindRunLike(stub, model, opt, err, &like, &code)) return code;
    }
    const v1::ModePrediction* next = nullptr;
    for (const v1::ModePrediction& c : predicted.candidates()) {
      if (!c.measured()) {
        next = &c;
        break;
      }
    }
    if (next == nullptr) {
      out << "  round " << round << ": every candidate of model "
          << predicted.model().model_id() << " is measured already\n";
      break;
    }
    // Run it once, like the model's runs.
    v1::SubmitSweepRequest submit;
    *submit.mutable_spec() = VerificationSweep(
        like, {next->mode()}, request.device_id(),
        absl::StrCat("verify-model-", model.model_id(), "-round-", round));
    v1::SubmitSweepResponse submitted;
    if (!Rpc([&](grpc::ClientContext* c) {
          return stub->SubmitSweep(c, submit, &submitted);
        }, 60, opt, err, &code)) {
      return code;
    }
    for (const std::string& w : submitted.warnings()) {
      err << "warning: " << w << "\n";
    }
    CliOptions watch = opt;
    watch.sweep_id = submitted.sweep_id();
    std::ostringstream watched;
    const int watch_code = CmdWatch(stub, watch, watched, err);
    if (watch_code == kExitUnreachable) return watch_code;
    failed_run = failed_run || watch_code != kExitOk;
    verification_runs += submitted.run_count();
    sweeps.push_back(submitted.sweep_id());

    // Refit the model's sweeps with every verification sweep so far.
    v1::FitModelsRequest fit;
    for (int64_t id : sweeps) fit.add_sweep_ids(id);
    fit.set_instances(FitInstances(model));
    v1::FitModelsResponse refit;
    if (!Rpc([&](grpc::ClientContext* c) {
          return stub->FitModels(c, fit, &refit);
        }, 300, opt, err, &code)) {
      return code;
    }
    const v1::WorkloadModel* again = nullptr;
    for (const v1::WorkloadModel& m : refit.models()) {
      if (WorkloadLabel(m) == WorkloadLabel(model) &&
          m.device_id() == model.device_id()) {
        again = &m;
      }
    }
    if (again == nullptr) {
      err << "error: best --verify: the refit of sweeps "
          << absl::StrJoin(sweeps, ", ") << " gave no model of "
          << WorkloadLabel(model);
      for (const std::string& p : refit.problems()) err << "; " << p;
      err << "\n";
      return kExitFailed;
    }
    // The round in one line: predicted and measured.
    out << "  round " << round << ": " << PowerModeText(next->mode(), "-")
        << " (sweep " << submitted.sweep_id() << "), predicted "
        << budget.what << " " << Num(budget.Of(*next)) << ", ";
    const v1::MeasuredMode* mm = nullptr;
    for (const v1::MeasuredMode& m : again->measured()) {
      if (SameKnobs(m.mode(), next->mode())) mm = &m;
    }
    if (mm == nullptr || !(mm->epoch_time_s() > 0)) {
      out << "not measured (its run did not finish)\n";
    } else {
      v1::ModePrediction as_measured;
      as_measured.set_epoch_time_s(mm->epoch_time_s());
      as_measured.set_epoch_energy_j(mm->epoch_energy_j());
      as_measured.set_power_w(mm->epoch_energy_j() / mm->epoch_time_s());
      const double value = budget.Of(as_measured);
      out << "measured " << Num(value)
          << (value <= budget.limit ? " (meets " : " (MISSES ")
          << Num(budget.limit) << "); " << unit << " time "
          << Num(mm->epoch_time_s()) << " s, energy "
          << Num(mm->epoch_energy_j()) << " J\n";
    }
    model = *again;
    ask.clear_selector();
    ask.mutable_selector()->set_model_id(model.model_id());
  }

  // The answer from the measured modes of the last fit.
  v1::BestRequest measured = request;
  measured.clear_selector();
  measured.mutable_selector()->set_model_id(model.model_id());
  measured.set_conservative(false);
  measured.set_measured_only(true);
  measured.set_candidates(0);
  v1::BestResponse answer;
  if (!Rpc([&](grpc::ClientContext* c) {
        return stub->Best(c, measured, &answer);
      }, 120, opt, err, &code)) {
    return code;
  }
  const v1::ModePrediction& b = answer.best();
  const std::string unit = TimeUnit(answer.model());
  out << "verified best mode: " << PowerModeText(b.mode(), "-") << "\n"
      << "  measured " << Figures(b, unit) << "\n"
      << "  " << answer.objective() << ", over " << answer.modes_considered()
      << " measured modes\n";
  const std::string pick = PowerModeText(b.mode(), "-");
  out << "  " << (pick == first_pick ? "is" : "differs from")
      << " the first predicted pick (" << first_pick << ")\n";
  out << "  runs: " << profiled_runs << " profiled + " << verification_runs
      << " verification\n";
  out << "basis: " << answer.basis() << "\n";
  return failed_run ? kExitFailed : kExitOk;
}

}  // namespace powersweep
