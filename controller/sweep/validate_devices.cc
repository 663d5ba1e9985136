#include "controller/sweep/validate_devices.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"
#include "common/kernel_names.h"
#include "common/power/mode_space.h"
#include "controller/sweep/expand.h"

namespace powersweep {
namespace {

std::vector<const v1::DeviceStatus*> DevicesOf(const ValidationContext& ctx,
                                               const std::string& cls) {
  std::vector<const v1::DeviceStatus*> out;
  for (const v1::DeviceStatus& d : ctx.known_devices) {
    if (d.identity().device_class() == cls) out.push_back(&d);
  }
  return out;
}

void CheckFrequency(const std::string& field, int64_t value,
                    const std::vector<int64_t>& table,
                    const DeviceClassInfo& cls,
                    std::vector<std::string>* problems) {
  if (value <= 0) return;  // 0 = leave as is; negatives reported elsewhere
  if (table.empty()) {
    problems->push_back(absl::StrCat(field, ": not settable on class ",
                                     cls.name, " in this version"));
  } else if (!std::binary_search(table.begin(), table.end(), value)) {
    problems->push_back(absl::StrCat(
        field, ": ", value, " is not a frequency of ", cls.name,
        " (nearest: ", absl::StrJoin(NearestValues(table, value), ", "), ")"));
  }
}

// What the power-mode checks need of one class, computed once per sweep:
// its presets as a set, and for classes that vary per device (host) the
// most cores and the CPU frequencies of its registered devices.
struct ClassFacts {
  const DeviceClassInfo* info = nullptr;
  absl::flat_hash_set<std::string> presets;
  int32_t most_cores = 0;              // 0: no device of the class known
  std::vector<int64_t> offered_khz;    // sorted, unique
  // Host GPUs (NVML): the SM clocks and power limits registered devices
  // offer, and why the others offer none ("DEVICE: reason").
  bool any_device = false;
  std::vector<int64_t> offered_gpu_hz;  // sorted, unique
  std::vector<std::pair<int32_t, int32_t>> limit_ranges_w;
  std::vector<std::string> gpu_notes;
};

ClassFacts FactsOf(const DeviceClassInfo& cls, const ValidationContext& ctx) {
  ClassFacts f;
  f.info = &cls;
  f.presets.insert(cls.presets.begin(), cls.presets.end());
  for (const v1::DeviceStatus* d : DevicesOf(ctx, cls.name)) {
    const v1::DeviceCapabilities& caps = d->capabilities();
    f.any_device = true;
    f.most_cores = std::max(f.most_cores, caps.cpu_cores());
    for (int64_t khz : caps.cpu_freqs_khz()) f.offered_khz.push_back(khz);
    for (int64_t hz : caps.gpu_freqs_hz()) f.offered_gpu_hz.push_back(hz);
    if (caps.gpu_power_limit_max_w() > 0) {
      f.limit_ranges_w.push_back(
          {caps.gpu_power_limit_min_w(), caps.gpu_power_limit_max_w()});
    }
    if (!caps.gpu_note().empty()) {
      f.gpu_notes.push_back(
          absl::StrCat(d->identity().device_id(), ": ", caps.gpu_note()));
    }
  }
  for (std::vector<int64_t>* v : {&f.offered_khz, &f.offered_gpu_hz}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return f;
}

// Why no registered device offers a GPU knob: their notes, or a hint.
std::string GpuNotes(const ClassFacts& facts) {
  if (facts.gpu_notes.empty()) return "no NVIDIA GPU reported";
  std::vector<std::string> notes = facts.gpu_notes;
  if (notes.size() > 3) {
    const size_t more = notes.size() - 3;
    notes.resize(3);
    notes.push_back(absl::StrCat("and ", more, " more"));
  }
  return absl::StrJoin(notes, "; ");
}

// Host GPU knobs (NVML): a locked SM clock one registered device offers, a
// power limit within one registered device's range.
void CheckHostGpu(const std::string& at, const v1::PowerMode& m,
                  const ClassFacts& facts, std::vector<std::string>* problems,
                  std::vector<std::string>* unchecked) {
  const std::string cls = facts.info->name;
  if (m.gpu_freq_hz() > 0) {
    const std::vector<int64_t>& offered = facts.offered_gpu_hz;
    if (!facts.any_device) {
      unchecked->push_back(at + "gpu_freq_hz");
    } else if (offered.empty()) {
      problems->push_back(absl::StrCat(
          at, "gpu_freq_hz: no registered ", cls,
          " device can lock its GPU's SM clock (", GpuNotes(facts), ")"));
    } else if (!std::binary_search(offered.begin(), offered.end(),
                                   m.gpu_freq_hz())) {
      problems->push_back(absl::StrCat(
          at, "gpu_freq_hz: ", m.gpu_freq_hz(),
          " is not an SM clock any registered ", cls,
          " GPU supports (nearest: ",
          absl::StrJoin(NearestValues(offered, m.gpu_freq_hz()), ", "),
          "; `powersweep devices --modes DEVICE` lists them)"));
    }
  }
  if (m.gpu_power_limit_w() > 0) {
    if (!facts.any_device) {
      unchecked->push_back(at + "gpu_power_limit_w");
    } else if (facts.limit_ranges_w.empty()) {
      problems->push_back(absl::StrCat(
          at, "gpu_power_limit_w: no registered ", cls,
          " device can set its GPU's power limit (", GpuNotes(facts), ")"));
    } else {
      bool fits = false;
      std::vector<std::string> ranges;
      for (const auto& [lo, hi] : facts.limit_ranges_w) {
        fits |= m.gpu_power_limit_w() >= lo && m.gpu_power_limit_w() <= hi;
        ranges.push_back(absl::StrCat(lo, "..", hi));
      }
      if (!fits) {
        problems->push_back(absl::StrCat(
            at, "gpu_power_limit_w: ", m.gpu_power_limit_w(),
            " W is outside the range of every registered ", cls,
            " GPU (", absl::StrJoin(ranges, ", "), " W)"));
      }
    }
  }
}

// A PowerMode's fields, as a hashable key for duplicate detection.
using ModeKey =
    std::tuple<std::string, int32_t, int64_t, int64_t, int64_t, int32_t>;
ModeKey KeyOf(const v1::PowerMode& m) {
  return {m.preset(),      m.cpu_cores(),   m.cpu_freq_khz(),
          m.gpu_freq_hz(), m.mem_freq_hz(), m.gpu_power_limit_w()};
}

// Fields that could not be checked (no device of the class known yet) are
// appended to `unchecked`.
void CheckCores(const std::string& field, int32_t cores,
                const ClassFacts& facts, std::vector<std::string>* problems,
                std::vector<std::string>* unchecked) {
  const DeviceClassInfo& cls = *facts.info;
  if (cores <= 0) return;
  if (cls.cpu_cores > 0) {
    if (cores > cls.cpu_cores) {
      problems->push_back(absl::StrCat(field, ": ", cores, " is more than the ",
                                       cls.cpu_cores, " cores of ", cls.name));
    }
    return;
  }
  // Classes whose core count varies per device (host): the largest
  // registered device bounds what a run can get.
  const int32_t most = facts.most_cores;
  if (most == 0) {
    unchecked->push_back(field);
  } else if (cores > most) {
    problems->push_back(absl::StrCat(field, ": ", cores, " is more than the ",
                                     most, " cores of the largest registered ",
                                     cls.name, " device"));
  }
}

// Classes whose CPU frequencies vary per device (host: cpufreq steps, or
// the emulated steps of its maximum): a value must be offered by a
// registered device of the class (capabilities.cpu_freqs_khz).
void CheckDeviceCpuFrequency(const std::string& field, int64_t khz,
                             const ClassFacts& facts,
                             std::vector<std::string>* problems,
                             std::vector<std::string>* unchecked) {
  const DeviceClassInfo& cls = *facts.info;
  if (khz <= 0) return;
  const std::vector<int64_t>& offered = facts.offered_khz;
  if (offered.empty()) {
    unchecked->push_back(field);
  } else if (!std::binary_search(offered.begin(), offered.end(), khz)) {
    problems->push_back(absl::StrCat(
        field, ": ", khz, " is not offered by any registered ", cls.name,
        " device (nearest: ", absl::StrJoin(NearestValues(offered, khz), ", "),
        "; `powersweep devices --modes DEVICE` lists a device's frequencies)"));
  }
}

}  // namespace

std::vector<const DeviceClassInfo*> KnownClassesOf(
    const v1::SweepSpec& spec, const ValidationContext& ctx) {
  std::vector<const DeviceClassInfo*> out;
  for (const std::string& name : spec.device_classes()) {
    const DeviceClassInfo* info = ctx.device_classes.Find(name);
    if (info != nullptr &&
        std::find(out.begin(), out.end(), info) == out.end()) {
      out.push_back(info);
    }
  }
  return out;
}

void CheckPowerModes(const v1::SweepSpec& spec, const ValidationContext& ctx,
                     std::vector<std::string>* problems,
                     std::vector<std::string>* warnings) {
  // What each class's checks need, computed once (not once per mode).
  std::vector<ClassFacts> classes;
  for (const DeviceClassInfo* cls : KnownClassesOf(spec, ctx)) {
    classes.push_back(FactsOf(*cls, ctx));
  }
  std::map<std::string, std::vector<std::string>> unchecked;  // by class
  // The first index of each distinct mode: duplicates in one pass.
  absl::flat_hash_map<ModeKey, int> first_of;
  first_of.reserve(spec.power_modes_size());
  for (int i = 0; i < spec.power_modes_size(); ++i) {
    const v1::PowerMode& m = spec.power_modes(i);
    const std::string at = absl::StrCat("power_modes[", i, "].");
    const std::pair<const char*, int64_t> knobs[] = {
        {"cpu_cores", m.cpu_cores()},
        {"cpu_freq_khz", m.cpu_freq_khz()},
        {"gpu_freq_hz", m.gpu_freq_hz()},
        {"mem_freq_hz", m.mem_freq_hz()},
        {"gpu_power_limit_w", m.gpu_power_limit_w()}};
    for (const auto& [name, value] : knobs) {
      if (value < 0) {
        problems->push_back(absl::StrCat(at, name,
                                         ": must not be negative (0 leaves "
                                         "it as the device has it), got ",
                                         value));
      }
    }
    // The same mode for other classes is no duplicate.
    ModeKey key = KeyOf(m);
    if (i < spec.power_mode_classes_size()) {
      std::vector<std::string> classes(
          spec.power_mode_classes(i).device_classes().begin(),
          spec.power_mode_classes(i).device_classes().end());
      std::sort(classes.begin(), classes.end());
      std::get<std::string>(key) += "\n" + absl::StrJoin(classes, ",");
    }
    auto [dup, inserted] = first_of.emplace(key, i);
    if (!inserted) {
      problems->push_back(absl::StrCat("power_modes[", i,
                                       "]: duplicate of power_modes[",
                                       dup->second, "]"));
    }
    for (const ClassFacts& facts : classes) {
      const DeviceClassInfo* cls = facts.info;
      // A mode meant for other classes is not checked against this one.
      if (!ModeAppliesTo(spec, i, cls->name)) continue;
      const bool per_device = cls->cpu_cores == 0 && cls->cpu_freqs_khz.empty();
      if (!m.preset().empty() && !facts.presets.contains(m.preset())) {
        problems->push_back(absl::StrCat(
            at, "preset: unknown preset '", m.preset(), "' for ", cls->name,
            " (known: ",
            cls->presets.empty() ? "none" : absl::StrJoin(cls->presets, ", "),
            ")"));
      }
      CheckCores(at + "cpu_cores", m.cpu_cores(), facts, problems,
                 &unchecked[cls->name]);
      if (per_device) {
        CheckDeviceCpuFrequency(at + "cpu_freq_khz", m.cpu_freq_khz(), facts,
                                problems, &unchecked[cls->name]);
        CheckHostGpu(at, m, facts, problems, &unchecked[cls->name]);
      } else {
        CheckFrequency(at + "cpu_freq_khz", m.cpu_freq_khz(),
                       cls->cpu_freqs_khz, *cls, problems);
        CheckFrequency(at + "gpu_freq_hz", m.gpu_freq_hz(), cls->gpu_freqs_hz,
                       *cls, problems);
        if (m.gpu_power_limit_w() > 0) {
          problems->push_back(absl::StrCat(
              at, "gpu_power_limit_w: not settable on class ", cls->name,
              " (a host GPU's knob, set through NVML; a Jetson's GPU is set "
              "by preset or gpu_freq_hz)"));
        }
      }
      CheckFrequency(at + "mem_freq_hz", m.mem_freq_hz(), cls->mem_freqs_hz,
                     *cls, problems);
    }
  }
  for (const auto& [cls, fields] : unchecked) {
    if (fields.empty()) continue;
    warnings->push_back(absl::StrCat(
        absl::StrJoin(fields, ", "), ": not checked against the cores and "
        "frequencies of a ", cls, " device because no ", cls,
        " device is registered yet"));
  }
}

void CheckRuntimeAvailability(const v1::SweepSpec& spec,
                              const ValidationContext& ctx,
                              std::vector<std::string>* problems) {
  // Every agent runs workloads natively; the container and vm runtimes
  // depend on what a device offers (capabilities.runtimes).
  for (int r = 0; r < spec.runtimes_size(); ++r) {
    const v1::Runtime runtime = spec.runtimes(r);
    if (!RunsInContainer(runtime) && !RunsInVm(runtime)) continue;
    for (const DeviceClassInfo* cls : KnownClassesOf(spec, ctx)) {
      const auto devices = DevicesOf(ctx, cls->name);
      if (devices.empty()) continue;  // unknown yet: warned elsewhere
      bool offered = false;
      int64_t largest_memory = 0;
      for (const v1::DeviceStatus* d : devices) {
        for (int rt : d->capabilities().runtimes()) {
          offered = offered || rt == runtime;
        }
        largest_memory =
            std::max(largest_memory, d->capabilities().memory_bytes());
      }
      if (!offered) {
        problems->push_back(absl::StrCat(
            "runtimes[", r, "]: no registered device of class ", cls->name,
            " offers the ", RuntimeText(runtime), " runtime",
            runtime == v1::RUNTIME_VM
                ? " (it needs qemu-system-x86, /dev/kvm and the guest "
                  "image: docs/vm.md)"
            : runtime == v1::RUNTIME_CONTAINER_IN_VM
                ? " (it needs the vm runtime and the agent's "
                  "--container_images with a running Docker engine: "
                  "docs/vm.md)"
                : ""));
      }
      if (!RunsInVm(runtime) || largest_memory == 0) continue;
      std::vector<std::pair<std::string, int32_t>> sizes;
      if (spec.vm_memory_mib().empty()) {
        sizes.push_back({"vm.memory_mib", spec.vm().memory_mib()});
      }
      for (int i = 0; i < spec.vm_memory_mib_size(); ++i) {
        sizes.push_back({absl::StrCat("vm_memory_mib[", i, "]"),
                         spec.vm_memory_mib(i)});
      }
      for (const auto& [field, mib] : sizes) {
        if ((int64_t{mib} << 20) <= largest_memory) continue;
        const std::string problem = absl::StrCat(
            field, ": ", mib, " MiB is more than the memory of any ",
            cls->name, " device (", largest_memory >> 20, " MiB)");
        if (std::find(problems->begin(), problems->end(), problem) ==
            problems->end()) {
          problems->push_back(problem);
        }
      }
    }
  }
}

void CheckDevicesRegistered(const v1::SweepSpec& spec,
                            const ValidationContext& ctx,
                            std::vector<std::string>* warnings) {
  for (const DeviceClassInfo* cls : KnownClassesOf(spec, ctx)) {
    if (DevicesOf(ctx, cls->name).empty()) {
      warnings->push_back(absl::StrCat("no device of class ", cls->name,
                                       " is registered; its runs wait until "
                                       "one connects"));
    }
  }
}

void CheckWorkloadsServed(const v1::SweepSpec& spec,
                          const ValidationContext& ctx,
                          std::vector<std::string>* warnings) {
  const std::vector<WorkloadPair> pairs = WorkloadPairs(spec);
  bool only_baseload = !spec.tasks().empty();
  for (int t : spec.tasks()) only_baseload &= t == v1::TASK_BASELOAD;
  for (const WorkloadPair& p : pairs) {
    only_baseload &= p.task == v1::TASK_UNSPECIFIED;  // a suffix is a task
  }
  if (only_baseload) return;
  for (const DeviceClassInfo* cls : KnownClassesOf(spec, ctx)) {
    const std::vector<const v1::DeviceStatus*> devices =
        DevicesOf(ctx, cls->name);
    if (devices.empty()) continue;  // CheckDevicesRegistered says so
    for (const WorkloadPair& p : pairs) {
      const bool served = std::any_of(
          devices.begin(), devices.end(), [&](const v1::DeviceStatus* d) {
            const auto& m = d->capabilities().models();
            const auto& s = d->capabilities().datasets();
            return std::find(m.begin(), m.end(), p.model) != m.end() &&
                   (IsKernelName(p.model) ||
                    std::find(s.begin(), s.end(), p.dataset) != s.end());
          });
      if (!served) {
        warnings->push_back(absl::StrCat(
            "no registered device of class ", cls->name, " offers ", p.model,
            " on ", p.dataset, "; its runs wait until one does (an agent "
            "offers a data set given by --dataset NAME=PATH)"));
      }
    }
  }
}

}  // namespace powersweep
