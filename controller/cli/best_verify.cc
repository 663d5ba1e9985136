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

// The budget's figure of a prediction and whether it meets the budget.
struct Budget {
  double limit = 0;
  const char* what = "";
  double Of(const v1::ModePrediction& p) const {
    if (what == std::string("epoch time")) return p.epoch_time_s();
    if (what == std::string("mean power")) return p.power_w();
    return p.epoch_energy_j();
  }
};
Budget BudgetOf(const v1::BestRequest& r) {
  if (r.max_epoch_time_s() > 0) return {r.max_epoch_time_s(), "epoch time"};
  if (r.max_power_w() > 0) return {r.max_power_w(), "mean power"};
  return {r.max_energy_j(), "epoch energy"};
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

int CmdBestVerify(v1::Control::StubInterface* stub,
                  const v1::BestRequest& request, int candidates,
                  const CliOptions& opt, std::ostream& out,
                  std::ostream& err) {
  // 1. The pick and the next best, predicted.
  v1::BestRequest first = request;
  first.set_candidates(candidates);
  v1::BestResponse predicted;
  {
    auto ctx = RpcContext(120);
    grpc::Status st = stub->Best(ctx.get(), first, &predicted);
    if (!st.ok()) return ReportRpcError(st, opt, err);
  }
  const v1::WorkloadModel& model = predicted.model();
  const std::string unit = TimeUnit(model);
  out << "best --verify for " << WorkloadLabel(model) << ": "
      << predicted.objective() << "\n";
  out << "  model " << model.model_id() << " (" << SweepsText(model) << ", "
      << model.run_ids_size() << " runs at " << model.measured_size()
      << " modes) predicts " << predicted.candidates_size()
      << " candidate(s):\n";
  std::vector<v1::PowerMode> modes;
  for (const v1::ModePrediction& c : predicted.candidates()) {
    modes.push_back(c.mode());
    out << "    " << PowerModeText(c.mode(), "-") << ": predicted "
        << Figures(c, unit) << (c.measured() ? " (already measured)" : "")
        << "\n";
  }

  // 2. Run them once each, like the model's runs.
  v1::ListRunsRequest list;
  list.set_sweep_id(model.sweep_id());
  v1::ListRunsResponse runs;
  {
    auto ctx = RpcContext(60);
    grpc::Status st = stub->ListRuns(ctx.get(), list, &runs);
    if (!st.ok()) return ReportRpcError(st, opt, err);
  }
  const std::set<int64_t> ids(model.run_ids().begin(), model.run_ids().end());
  const v1::RunSpec* like = nullptr;
  for (const v1::RunStatus& r : runs.runs()) {
    if (ids.count(r.spec().run_id())) {
      like = &r.spec();
      break;
    }
  }
  if (like == nullptr) {
    err << "error: best --verify: no run of model " << model.model_id()
        << " found in sweep " << model.sweep_id() << " to run the candidates "
        << "like\n";
    return kExitFailed;
  }
  v1::SubmitSweepRequest submit;
  *submit.mutable_spec() = VerificationSweep(
      *like, modes, request.device_id(),
      absl::StrCat("verify-model-", model.model_id()));
  v1::SubmitSweepResponse submitted;
  {
    auto ctx = RpcContext(60);
    grpc::Status st = stub->SubmitSweep(ctx.get(), submit, &submitted);
    if (!st.ok()) return ReportRpcError(st, opt, err);
  }
  out << "  verification sweep " << submitted.sweep_id() << ": "
      << submitted.run_count() << " run(s), one per candidate, on "
      << (request.device_id().empty() ? "any device of " + model.device_class()
                                      : request.device_id())
      << "\n";
  for (const std::string& w : submitted.warnings()) {
    err << "warning: " << w << "\n";
  }
  CliOptions watch = opt;
  watch.sweep_id = submitted.sweep_id();
  std::ostringstream watched;
  const int watch_code = CmdWatch(stub, watch, watched, err);
  out << "  " << watched.str();
  if (watch_code == kExitUnreachable) return watch_code;

  // 3. Refit with the verification runs.
  v1::FitModelsRequest fit;
  for (int64_t id : model.sweep_ids()) fit.add_sweep_ids(id);
  if (model.sweep_ids().empty()) fit.add_sweep_ids(model.sweep_id());
  fit.add_sweep_ids(submitted.sweep_id());
  fit.set_instances(FitInstances(model));
  v1::FitModelsResponse refit;
  {
    auto ctx = RpcContext(300);
    grpc::Status st = stub->FitModels(ctx.get(), fit, &refit);
    if (!st.ok()) return ReportRpcError(st, opt, err);
  }
  const v1::WorkloadModel* next = nullptr;
  for (const v1::WorkloadModel& m : refit.models()) {
    if (WorkloadLabel(m) == WorkloadLabel(model) &&
        m.device_id() == model.device_id()) {
      next = &m;
    }
  }
  if (next == nullptr) {
    err << "error: best --verify: the refit of "
        << absl::StrJoin(fit.sweep_ids(), ", ") << " gave no model of "
        << WorkloadLabel(model);
    for (const std::string& p : refit.problems()) err << "; " << p;
    err << "\n";
    return kExitFailed;
  }
  out << "  refitted as model " << next->model_id() << " on "
      << next->run_ids_size() << " runs of " << SweepsText(*next) << "\n";

  // 4. The answer from the measured modes.
  v1::BestRequest measured = request;
  measured.clear_selector();
  measured.mutable_selector()->set_model_id(next->model_id());
  measured.set_conservative(false);
  measured.set_measured_only(true);
  measured.set_candidates(0);
  v1::BestResponse answer;
  {
    auto ctx = RpcContext(120);
    grpc::Status st = stub->Best(ctx.get(), measured, &answer);
    if (!st.ok()) return ReportRpcError(st, opt, err);
  }
  const Budget budget = BudgetOf(request);
  out << "  measured, the candidates:\n";
  for (const v1::ModePrediction& c : predicted.candidates()) {
    const v1::MeasuredMode* mm = nullptr;
    for (const v1::MeasuredMode& m : next->measured()) {
      if (SameKnobs(m.mode(), c.mode())) mm = &m;
    }
    out << "    " << PowerModeText(c.mode(), "-") << ": ";
    if (mm == nullptr || !(mm->epoch_time_s() > 0)) {
      out << "not measured (its run did not finish)\n";
      continue;
    }
    const double power =
        mm->epoch_energy_j() > 0 ? mm->epoch_energy_j() / mm->epoch_time_s()
                                 : 0;
    v1::ModePrediction as_measured;
    as_measured.set_epoch_time_s(mm->epoch_time_s());
    as_measured.set_epoch_energy_j(mm->epoch_energy_j());
    as_measured.set_power_w(power);
    const double value = budget.Of(as_measured);
    out << unit << " time " << Num(mm->epoch_time_s()) << " s, energy "
        << Num(mm->epoch_energy_j()) << " J, mean power " << Num(power)
        << " W: " << budget.what << " " << Num(value)
        << (value <= budget.limit ? " meets" : " MISSES") << " the budget "
        << Num(budget.limit) << " (predicted " << Num(budget.Of(c)) << ")\n";
  }
  const v1::ModePrediction& b = answer.best();
  out << "verified best mode: " << PowerModeText(b.mode(), "-") << "\n"
      << "  measured " << Figures(b, unit) << "\n"
      << "  " << answer.objective() << ", over " << answer.modes_considered()
      << " measured modes\n";
  const bool changed = !SameKnobs(b.mode(), predicted.best().mode());
  out << "  " << (changed ? "differs from" : "is") << " the predicted pick ("
      << PowerModeText(predicted.best().mode(), "-") << ")\n";
  out << "  runs: " << model.run_ids_size() << " profiled + "
      << submitted.run_count() << " verification\n";
  out << "basis: " << answer.basis() << "\n";
  return watch_code == kExitOk ? kExitOk : kExitFailed;
}

}  // namespace powersweep
