// MemoryStore: the CSV export, cell for cell as SqliteStore writes it.
#include "storage/memory_store.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/proto_json.h"
#include "common/status_macros.h"
#include "common/csv_cell.h"
#include "storage/run_trace_rows.h"
#include "storage/schema_text.h"
#include "storage/telemetry_extras.h"

namespace powersweep {
namespace {

constexpr int kRowsPerChunk = 1000;

// ---- CSV cells as SqliteStore's export shows them (SQLite's text of the
// stored value; "" for NULL).

// A REAL: SQLite's "%!.15g" (always a decimal point); NaN is NULL.
std::string Real(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  if (v == 0) return "0.0";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  std::string s(buf);
  const size_t e = s.find('e');
  const std::string mantissa = s.substr(0, e);
  if (mantissa.find('.') == std::string::npos) {
    s.insert(e == std::string::npos ? s.size() : e, ".0");
  }
  return s;
}

std::string Int(int64_t v) { return absl::StrCat(v); }

std::string OptInt(const std::optional<int64_t>& v) {
  return v.has_value() ? Int(*v) : std::string();
}

void AppendRow(const std::vector<std::string>& cells, std::string* out) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendCsvCell(cells[i], out);
  }
  out->push_back('\n');
}

const std::vector<std::string>& RunsHeader() {
  static const auto* const kHeader =
      new std::vector<std::string>{"run_id",
                                   "sweep_id",
                                   "device_class",
                                   "model",
                                   "dataset",
                                   "task",
                                   "batch_size",
                                   "loader_workers",
                                   "prefetch_depth",
                                   "page_cache",
                                   "preload",
                                   "input_size",
                                   "cpu_cores",
                                   "cpu_freq_khz",
                                   "gpu_freq_hz",
                                   "mem_freq_hz",
                                   "preset",
                                   "runtime",
                                   "repetition",
                                   "attempt",
                                   "state",
                                   "device_id",
                                   "reason",
                                   "created_unix_ms",
                                   "leased_unix_ms",
                                   "started_unix_ms",
                                   "finished_unix_ms",
                                   "ok",
                                   "result_reason",
                                   "exit_code",
                                   "term_signal",
                                   "duration_s",
                                   "energy_j",
                                   "energy_provenance",
                                   "sampler_cpu_s",
                                   "energy_stall_j",
                                   "energy_compute_j",
                                   "baseload_power_mw",
                                   "incremental_energy_j",
                                   "agent_cpu_fraction",
                                   "framework",
                                   "framework_version",
                                   "binary_fingerprint",
                                   "framework_fingerprint",
                                   "threads",
                                   "compute_device",
                                   "kernel",
                                   "host",
                                   "model_params",
                                   "model_forward_macs",
                                   "dataset_format",
                                   "storage_device",
                                   "storage_kind",
                                   "kernel_shape",
                                   "kernel_flops",
                                   "kernel_launches",
                                   "gpu_power_limit_w",
                                   "gpu_counter_energy_j",
                                   "applied_mode_json"};
  return *kHeader;
}

const std::vector<std::string>& MinibatchesHeader() {
  static const auto* const kHeader =
      new std::vector<std::string>{"run_id",
                                   "attempt",
                                   "seq",
                                   "idx",
                                   "epoch",
                                   "t_start_s",
                                   "stall_s",
                                   "compute_s",
                                   "e2e_s",
                                   "samples",
                                   "loss",
                                   "tenant",
                                   "page_cache_resident",
                                   "tokens",
                                   "ttft_s",
                                   "per_token_s",
                                   "h2d_s",
                                   "warmup"};
  return *kHeader;
}

const std::vector<std::string>& TelemetryHeader() {
  static const auto* const kHeader =
      new std::vector<std::string>{"run_id",
                                   "attempt",
                                   "seq",
                                   "t_s",
                                   "cpu_util",
                                   "core_util",
                                   "core_freq_khz",
                                   "mem_used_bytes",
                                   "mem_total_bytes",
                                   "proc_cpu_s",
                                   "proc_rss_bytes",
                                   "gpu_util",
                                   "gpu_freq_hz",
                                   "power_mw",
                                   "power_provenance",
                                   "rails_json",
                                   "mem_freq_hz",
                                   "pgfault",
                                   "pgmajfault",
                                   "nr_dirty",
                                   "nr_writeback",
                                   "pgpgout_kib",
                                   "nr_written",
                                   "tenant_pgfault",
                                   "tenant_pgmajfault"};
  return *kHeader;
}

// The result columns of runs.csv (empty without a result).
void AppendResultCells(const v1::RunResult* r, std::vector<std::string>* row) {
  if (r == nullptr) {
    row->resize(row->size() + 29);  // gpu_counter_energy_j: after them
    row->emplace_back();
    return;
  }
  const v1::BuildProvenance& p = r->provenance();
  const bool incremental_known =
      !(r->incremental_energy_j() == 0 && r->baseload_power_mw() == 0);
  const bool has_workload = p.has_workload() &&
                            (p.workload().params() > 0 || p.workload().has_kernel());
  const v1::WorkloadInfo& w = p.workload();
  const std::vector<std::string> cells = {
      r->ok() ? "1" : "0",
      r->reason(),
      Int(r->exit_code()),
      Int(r->term_signal()),
      Real(r->duration_s()),
      Real(r->energy_j()),
      ProvenanceText(r->energy_provenance()),
      Real(r->sampler_cpu_s()),
      Real(r->energy_stall_j()),
      Real(r->energy_compute_j()),
      Real(r->baseload_power_mw()),
      incremental_known ? Real(r->incremental_energy_j()) : "",
      Real(r->agent_cpu_fraction()),
      p.framework(),
      p.framework_version(),
      p.binary_fingerprint(),
      p.framework_fingerprint(),
      Int(p.threads()),
      p.device(),
      p.kernel(),
      p.host(),
      has_workload ? Int(w.params()) : "",
      has_workload ? Int(w.forward_macs()) : "",
      has_workload ? w.dataset_format() : "",
      has_workload ? w.storage().device() : "",
      has_workload ? w.storage().kind() : "",
      // Kernel runs only; what csv_export.cc's json_extract finds in the
      // stored result (JSON omits zero values).
      w.has_kernel() && !w.kernel().shape().empty() ? w.kernel().shape() : "",
      w.has_kernel() && w.kernel().flops() != 0 ? Real(w.kernel().flops()) : "",
      w.has_kernel() && w.kernel().launches() != 0 ? Real(w.kernel().launches())
                                                   : ""};
  row->insert(row->end(), cells.begin(), cells.end());
  // A host GPU's energy counter over the run (docs/gpu.md); empty when none.
  row->push_back(r->gpu_counter_energy_j() != 0
                     ? Real(r->gpu_counter_energy_j())
                     : "");
}

}  // namespace

std::vector<std::string> MemoryStore::CsvChunks(const Sweep& sweep,
                                                const std::string& table) {
  std::vector<std::string> chunks;
  std::string chunk;
  int rows_in_chunk = 0;
  auto add = [&](const std::vector<std::string>& cells) {
    AppendRow(cells, &chunk);
    if (++rows_in_chunk == kRowsPerChunk) {
      chunks.push_back(std::move(chunk));
      chunk.clear();
      rows_in_chunk = 0;
    }
  };
  if (table == "runs") {
    AppendRow(RunsHeader(), &chunk);
    for (int64_t id : sweep.run_ids) {
      Run& run = runs_.at(id);
      const v1::RunSpec& s = run.spec;
      const v1::WorkloadSpec& w = s.workload();
      const v1::PowerMode& m = s.power_mode();
      std::vector<std::string> row = {
          Int(id),
          Int(s.sweep_id()),
          s.device_class(),
          w.model(),
          w.dataset(),
          TaskText(w.task()),
          Int(w.batch_size()),
          Int(w.loader_workers()),
          Int(w.prefetch_depth()),
          w.page_cache() == v1::PAGE_CACHE_DROP ? "drop" : "keep",
          w.preload() ? "1" : "0",
          Int(w.input_size()),
          Int(m.cpu_cores()),
          Int(m.cpu_freq_khz()),
          Int(m.gpu_freq_hz()),
          Int(m.mem_freq_hz()),
          m.preset(),
          RuntimeText(s.runtime()),
          Int(s.repetition()),
          Int(s.attempt()),
          StateText(run.state),
          run.device_id,
          run.reason,
          Int(run.created_ms),
          OptInt(run.leased_ms),
          OptInt(run.started_ms),
          OptInt(run.finished_ms)};
      const Attempt& a = Current(run);
      AppendResultCells(a.result ? &*a.result : nullptr, &row);
      // gpu_power_limit_w goes before the result's gpu_counter_energy_j.
      row.insert(row.end() - 1, Int(m.gpu_power_limit_w()));
      row.push_back(run.applied_mode ? ToJsonLine(*run.applied_mode) : "");
      add(row);
    }
  } else if (table == "traces") {
    AppendRow(RunTraceColumns(), &chunk);
    for (int64_t id : sweep.run_ids) {
      for (const auto& [attempt, a] : runs_.at(id).attempts) {
        if (!a.result || !a.result->has_traces()) continue;
        for (const RunTraceRow& t : RunTraceRows(a.result->traces())) {
          auto real = [](const std::optional<double>& v) {
            return v ? Real(*v) : std::string();
          };
          add({Int(id), Int(attempt), t.kind, t.name, t.scope,
               OptInt(t.count), OptInt(t.bytes), OptInt(t.interval_count),
               real(t.interval_mean_s), real(t.interval_sd_s),
               real(t.interval_p50_s), real(t.interval_max_s),
               t.missing_reason.value_or("")});
        }
      }
    }
  } else if (table == "minibatches") {
    AppendRow(MinibatchesHeader(), &chunk);
    for (int64_t id : sweep.run_ids) {
      for (const auto& [attempt, a] : runs_.at(id).attempts) {
        std::vector<const Minibatch*> rows;
        for (const Minibatch& mb : a.minibatches) rows.push_back(&mb);
        std::stable_sort(rows.begin(), rows.end(),
                         [](const auto* x, const auto* y) {
                           return x->record.index() < y->record.index();
                         });
        for (const Minibatch* mb : rows) {
          const v1::MinibatchRecord& r = mb->record;
          add({Int(id), Int(attempt), Int(mb->seq), Int(r.index()),
               Int(r.epoch()), Real(r.t_start_s()), Real(r.stall_s()),
               Real(r.compute_s()), Real(r.e2e_s()), Int(r.samples()),
               r.has_loss() ? Real(r.loss()) : "", Int(r.tenant()),
               r.has_page_cache_resident() ? Real(r.page_cache_resident())
                                           : "",
               r.tokens() != 0 ? Int(r.tokens()) : "",
               r.has_ttft_s() ? Real(r.ttft_s()) : "",
               r.has_per_token_s() ? Real(r.per_token_s()) : "",
               r.h2d_s() > 0 ? Real(r.h2d_s()) : "",
               r.warmup() ? "1" : ""});
        }
      }
    }
  } else {  // telemetry
    AppendRow(TelemetryHeader(), &chunk);
    std::vector<double> utils;
    std::vector<int64_t> freqs;
    std::string extras;
    for (int64_t id : sweep.run_ids) {
      for (const auto& [attempt, a] : runs_.at(id).attempts) {
        std::vector<const Sample*> rows;
        for (const Sample& s : a.telemetry) rows.push_back(&s);
        std::stable_sort(rows.begin(), rows.end(),
                         [](const auto* x, const auto* y) {
                           return x->sample.t_s() < y->sample.t_s();
                         });
        for (const Sample* row : rows) {
          const v1::TelemetrySample& s = row->sample;
          utils.clear();
          freqs.clear();
          for (const v1::CoreSample& core : s.cores()) {
            utils.push_back(core.util());
            freqs.push_back(core.freq_khz());
          }
          EncodeTelemetryExtras(s, &extras);
          std::string extras_json;
          if (!extras.empty())
            extras_json = TelemetryExtrasJson(extras).value_or("");
          std::vector<std::string> cells = {
              Int(id),
              Int(attempt),
              Int(row->seq),
              Real(s.t_s()),
              Real(s.cpu_util()),
              JoinDoubles(utils),
              JoinInts(freqs),
              Int(s.mem_used_bytes()),
              Int(s.mem_total_bytes()),
              Real(s.proc_cpu_s()),
              Int(s.proc_rss_bytes()),
              Real(s.gpu_util()),
              Int(s.gpu_freq_hz()),
              Real(s.power_mw()),
              ProvenanceText(s.power_provenance()),
              extras_json,
              s.mem_freq_hz() > 0 ? Int(s.mem_freq_hz()) : ""};
          const v1::KernelCounters& k = s.counters();
          for (int64_t v : {k.pgfault(), k.pgmajfault(), k.nr_dirty(),
                            k.nr_writeback(), k.pgpgout(), k.nr_written(),
                            k.tenant_pgfault(), k.tenant_pgmajfault()}) {
            cells.push_back(s.has_counters() ? Int(v) : "");
          }
          add(cells);
        }
      }
    }
  }
  if (!chunk.empty()) chunks.push_back(std::move(chunk));
  return chunks;
}

absl::Status MemoryStore::ExportCsv(
    int64_t sweep_id, const std::string& table,
    const std::function<void(const std::string&)>& sink) {
  if (table != "runs" && table != "minibatches" && table != "telemetry" &&
      table != "traces") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown export table '", table,
                     "' (expected runs, minibatches, telemetry or traces)"));
  }
  std::vector<std::string> chunks;
  {
    absl::MutexLock lock(&mu_);
    PS_ASSIGN_OR_RETURN(Sweep* sweep, FindSweep(sweep_id));
    chunks = CsvChunks(*sweep, table);
  }
  // One snapshot, written without the lock.
  for (const std::string& chunk : chunks) sink(chunk);
  return absl::OkStatus();
}

}  // namespace powersweep
