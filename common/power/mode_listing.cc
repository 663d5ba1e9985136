#include "common/power/mode_listing.h"

#include "absl/strings/str_cat.h"

namespace powersweep {

v1::PowerModePreset ToProto(const PresetMode& preset) {
  v1::PowerModePreset p;
  p.set_name(preset.name);
  p.set_source(preset.source);
  p.set_nvpmodel_id(preset.nvpmodel_id);
  p.set_fixed(preset.fixed);
  p.set_cpu_cores(preset.cpu_cores);
  p.set_cpu_max_khz(preset.cpu_max_khz);
  p.set_gpu_max_hz(preset.gpu_max_hz);
  p.set_mem_max_hz(preset.mem_max_hz);
  p.set_note(preset.note);
  if (preset.gpu_pg_mask >= 0) {
    p.set_gpu_pg_mask(preset.gpu_pg_mask);
    p.set_gpu_pg_mask_known(true);
  }
  return p;
}

CustomMode ToCustomMode(const v1::PowerMode& mode) {
  CustomMode m;
  m.cpu_cores = mode.cpu_cores();
  m.cpu_freq_khz = mode.cpu_freq_khz();
  m.gpu_freq_hz = mode.gpu_freq_hz();
  m.mem_freq_hz = mode.mem_freq_hz();
  return m;
}

absl::StatusOr<v1::ListModesResponse> ListModesFor(
    const v1::DeviceStatus& device, const PowerCatalog& catalog) {
  const std::string& cls = device.identity().device_class();
  const PowerCatalog::ClassEntry* entry = catalog.Find(cls);
  if (entry == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "device ", device.identity().device_id(), " has class '", cls,
        "', which the power-mode catalog does not know"));
  }
  if (device.identity().device_id().empty() && entry->spec.cpu_cores == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "class ", cls, ": its modes depend on the device (cores, cpufreq); "
        "name a registered device of the class"));
  }
  DeviceClassSpec spec = entry->spec;
  // Classes whose CPU steps vary per device (host: cpufreq, or emulated
  // steps of its maximum): the steps the device reports.
  if (spec.cpu_freqs_khz.empty()) {
    spec.cpu_freqs_khz.assign(device.capabilities().cpu_freqs_khz().begin(),
                              device.capabilities().cpu_freqs_khz().end());
  }
  // And a host GPU's SM clocks it can lock (NVML).
  if (spec.gpu_freqs_hz.empty()) {
    spec.gpu_freqs_hz.assign(device.capabilities().gpu_freqs_hz().begin(),
                             device.capabilities().gpu_freqs_hz().end());
  }
  const ModeSpace space(spec, device.capabilities().cpu_cores());
  v1::ListModesResponse out;
  out.set_device_id(device.identity().device_id());
  out.set_device_class(cls);
  for (const PresetMode& p : entry->presets) *out.add_presets() = ToProto(p);
  out.set_custom_space_size(space.Size());
  out.set_core_choices(space.cores());
  out.set_cpu_freq_choices(
      static_cast<int32_t>(space.spec().cpu_freqs_khz.size()));
  out.set_gpu_freq_choices(
      static_cast<int32_t>(space.spec().gpu_freqs_hz.size()));
  out.set_mem_freq_choices(
      static_cast<int32_t>(space.spec().mem_freqs_hz.size()));
  for (int64_t khz : space.spec().cpu_freqs_khz) out.add_cpu_freqs_khz(khz);
  for (int64_t hz : space.spec().gpu_freqs_hz) out.add_gpu_freqs_hz(hz);
  for (int64_t hz : space.spec().mem_freqs_hz) out.add_mem_freqs_hz(hz);
  return out;
}

}  // namespace powersweep
