#include "agent/platform/twin/twin_class.h"

#include <algorithm>
#include <map>

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"

namespace powersweep {
namespace {

RailSpec Rail(const std::string& name,
              std::initializer_list<PowerComponent> parts) {
  RailSpec r;
  r.name = name;
  for (PowerComponent c : parts) r.weights[c] = 1.0;
  return r;
}

RailSpec TotalRail(const std::string& name) {
  RailSpec r = Rail(name, {kCpu, kGpu, kEmc, kSoc, kCv, kSys});
  r.is_total = true;
  return r;
}

// Performance and power constants: see docs/twin-model.md for sources.
// Cores and frequency tables come from common/power (WithTables).
TwinClass OrinAgx() {
  TwinClass c;
  c.name = "orin-agx";
  c.model = "Jetson AGX Orin Developer Kit (twin)";
  c.memory_bytes = int64_t{32} << 30;
  c.perf = {4096, 0.3, 5000, 64, 0.6, 1.0, 400e6, 1.5, 8.5e-3};
  c.power.static_mw = {0, 300, 150, 1200, 200, 2500};
  c.power.cpu_static_mw_per_core = 50;
  c.power.cpu_dyn_mw_per_ghz = 520;
  c.power.gpu_dyn_mw_per_ghz = 19000;
  c.power.emc_dyn_mw_per_ghz = 1500;
  c.power.idle_activity = 0.05;
  c.power.emc_idle_activity = 0.15;
  c.power.thermal_c_per_w = 0.45;
  // 1-0040: VDD_GPU_SOC, VDD_CPU_CV, VIN_SYS_5V0; 1-0041: VDDQ_VDD2_1V8AO.
  // No total rail on this board (VIN_SYS_5V0 is not the input).
  c.rails = {Rail("VDD_GPU_SOC", {kGpu, kSoc}), Rail("VDD_CPU_CV", {kCpu, kCv}),
             Rail("VIN_SYS_5V0", {kSys}), Rail("VDDQ_VDD2_1V8AO", {kEmc})};
  return c;
}

TwinClass XavierAgx() {
  TwinClass c;
  c.name = "xavier-agx";
  c.model = "Jetson-AGX (twin)";
  c.memory_bytes = int64_t{32} << 30;
  c.perf = {1024, 0.3, 5000, 64, 0.6, 0.8, 300e6, 2.0, 8.5e-3};
  c.power.static_mw = {0, 300, 150, 1500, 150, 2300};
  c.power.cpu_static_mw_per_core = 60;
  c.power.cpu_dyn_mw_per_ghz = 700;
  c.power.gpu_dyn_mw_per_ghz = 13000;
  c.power.emc_dyn_mw_per_ghz = 1400;
  c.power.idle_activity = 0.05;
  c.power.emc_idle_activity = 0.15;
  c.power.thermal_c_per_w = 0.8;
  // 1-0040: GPU, CPU, SOC; 1-0041: CV, VDDRQ, SYS5V. No total rail.
  c.rails = {Rail("GPU", {kGpu}), Rail("CPU", {kCpu}),   Rail("SOC", {kSoc}),
             Rail("CV", {kCv}),   Rail("VDDRQ", {kEmc}), Rail("SYS5V", {kSys})};
  return c;
}

TwinClass XavierNx() {
  TwinClass c;
  c.name = "xavier-nx";
  c.model = "NVIDIA Jetson Xavier NX Developer Kit (twin)";
  c.memory_bytes = int64_t{8} << 30;
  c.perf = {768, 0.3, 5000, 32, 0.6, 0.8, 100e6, 2.5, 11.7e-3};
  c.power.static_mw = {0, 150, 100, 700, 50, 1000};
  c.power.cpu_static_mw_per_core = 40;
  c.power.cpu_dyn_mw_per_ghz = 450;
  c.power.gpu_dyn_mw_per_ghz = 6500;
  c.power.emc_dyn_mw_per_ghz = 900;
  c.power.idle_activity = 0.05;
  c.power.emc_idle_activity = 0.15;
  c.power.thermal_c_per_w = 1.6;
  // 7-0040: VDD_IN (the board total), VDD_CPU_GPU_CV, VDD_SOC.
  c.rails = {TotalRail("VDD_IN"), Rail("VDD_CPU_GPU_CV", {kCpu, kGpu, kCv}),
             Rail("VDD_SOC", {kSoc, kEmc})};
  return c;
}

TwinClass Nano() {
  TwinClass c;
  c.name = "nano";
  c.model = "NVIDIA Jetson Nano Developer Kit (twin)";
  c.memory_bytes = int64_t{4} << 30;
  c.perf = {256, 0.3, 5000, 16, 0.6, 0.5, 80e6, 3.0, 11.7e-3};
  c.power.static_mw = {0, 100, 80, 400, 0, 700};
  c.power.cpu_static_mw_per_core = 40;
  c.power.cpu_dyn_mw_per_ghz = 500;
  c.power.gpu_dyn_mw_per_ghz = 4300;
  c.power.emc_dyn_mw_per_ghz = 500;
  c.power.idle_activity = 0.05;
  c.power.emc_idle_activity = 0.15;
  c.power.thermal_c_per_w = 2.5;
  // 6-0040 (iio): POM_5V_IN (the board total), POM_5V_GPU, POM_5V_CPU.
  c.rails = {TotalRail("POM_5V_IN"), Rail("POM_5V_GPU", {kGpu}),
             Rail("POM_5V_CPU", {kCpu})};
  return c;
}

// The 2026 classes (docs/twin-model.md, docs/jetson.md): module data and
// public dumps for cores, memory and rails; the constants are assumed,
// not calibrated against a board.
TwinClass OrinNx() {
  TwinClass c;
  c.name = "orin-nx";
  c.model = "NVIDIA Jetson Orin NX Engineering Reference Developer Kit "
            "Super (twin)";
  c.memory_bytes = int64_t{16} << 30;
  c.perf = {2048, 0.3, 5000, 32, 0.6, 1.0, 400e6, 2.0, 8.5e-3};
  c.power.static_mw = {0, 200, 100, 800, 100, 1500};
  c.power.cpu_static_mw_per_core = 45;
  c.power.cpu_dyn_mw_per_ghz = 450;
  c.power.gpu_dyn_mw_per_ghz = 13000;
  c.power.emc_dyn_mw_per_ghz = 1200;
  c.power.idle_activity = 0.05;
  c.power.emc_idle_activity = 0.15;
  c.power.thermal_c_per_w = 1.2;
  // ina3221 1-0040: VDD_IN (the module input), VDD_CPU_GPU_CV, VDD_SOC.
  c.rails = {TotalRail("VDD_IN"), Rail("VDD_CPU_GPU_CV", {kCpu, kGpu, kCv}),
             Rail("VDD_SOC", {kSoc, kEmc})};
  return c;
}

TwinClass OrinNano() {
  TwinClass c;
  c.name = "orin-nano";
  c.model = "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit "
            "Super (twin)";
  c.memory_bytes = int64_t{8} << 30;
  c.perf = {2048, 0.3, 5000, 32, 0.6, 1.0, 100e6, 2.5, 11.7e-3};
  c.power.static_mw = {0, 150, 100, 600, 0, 1000};
  c.power.cpu_static_mw_per_core = 40;
  c.power.cpu_dyn_mw_per_ghz = 400;
  c.power.gpu_dyn_mw_per_ghz = 9000;
  c.power.emc_dyn_mw_per_ghz = 900;
  c.power.idle_activity = 0.05;
  c.power.emc_idle_activity = 0.15;
  c.power.thermal_c_per_w = 1.8;
  // ina3221 1-0040: VDD_IN (the module input), VDD_CPU_GPU_CV, VDD_SOC.
  c.rails = {TotalRail("VDD_IN"), Rail("VDD_CPU_GPU_CV", {kCpu, kGpu, kCv}),
             Rail("VDD_SOC", {kSoc, kEmc})};
  return c;
}

TwinClass Thor() {
  TwinClass c;
  c.name = "thor";
  c.model = "NVIDIA Jetson AGX Thor Developer Kit (twin)";
  c.memory_bytes = int64_t{128} << 30;
  c.perf = {5120, 0.3, 5000, 64, 0.6, 1.5, 2000e6, 2.0, 2.0e-3};
  // SYS carries the 5 V system rail and the conversion losses only the
  // input rail sees (idle: VIN 19.8 W against 13.5 W on the other three
  // rails in a published R38.4 tegrastats line).
  c.power.static_mw = {0, 1500, 800, 2000, 500, 11800};
  c.power.cpu_static_mw_per_core = 100;
  c.power.cpu_dyn_mw_per_ghz = 900;
  c.power.gpu_dyn_mw_per_ghz = 40000;
  c.power.emc_dyn_mw_per_ghz = 2500;
  c.power.idle_activity = 0.05;
  c.power.emc_idle_activity = 0.15;
  c.power.thermal_c_per_w = 0.35;
  // ina3221: VDD_GPU, VDD_CPU_SOC_MSS (CPU, SoC and memory subsystem),
  // VIN_SYS_5V0; ina238: VIN, the input and the total.
  RailSpec sys5v = Rail("VIN_SYS_5V0", {kSys});
  sys5v.weights[kSys] = 0.475;
  c.rails = {Rail("VDD_GPU", {kGpu}),
             Rail("VDD_CPU_SOC_MSS", {kCpu, kSoc, kEmc, kCv}), sys5v,
             TotalRail("VIN")};
  return c;
}

TwinClass WithTables(TwinClass c) {
  absl::StatusOr<DeviceClassSpec> spec = FindBuiltInDeviceClass(c.name);
  if (spec.ok()) {
    c.cores = spec->cpu_cores;
    c.cpu_freqs_khz = spec->cpu_freqs_khz;
    c.gpu_freqs_hz = spec->gpu_freqs_hz;
    c.mem_freqs_hz = spec->mem_freqs_hz;
    std::sort(c.cpu_freqs_khz.begin(), c.cpu_freqs_khz.end());
    std::sort(c.gpu_freqs_hz.begin(), c.gpu_freqs_hz.end());
    std::sort(c.mem_freqs_hz.begin(), c.mem_freqs_hz.end());
  }
  return c;
}

const std::map<std::string, TwinClass>& Classes() {
  // Built once, never destroyed (immutable data, no teardown order issues).
  static const auto* classes = new std::map<std::string, TwinClass>{
      {"orin-agx", WithTables(OrinAgx())},
      {"xavier-agx", WithTables(XavierAgx())},
      {"xavier-nx", WithTables(XavierNx())},
      {"nano", WithTables(Nano())},
      {"orin-nx", WithTables(OrinNx())},
      {"orin-nano", WithTables(OrinNano())},
      {"thor", WithTables(Thor())}};
  return *classes;
}

}  // namespace

OperatingPoint TwinClass::Max() const {
  OperatingPoint p;
  p.cores = cores;
  p.cpu_khz = cpu_freqs_khz.empty() ? 0 : cpu_freqs_khz.back();
  p.gpu_hz = gpu_freqs_hz.empty() ? 0 : gpu_freqs_hz.back();
  p.mem_hz = mem_freqs_hz.empty() ? 0 : mem_freqs_hz.back();
  return p;
}

const TwinClass* FindTwinClass(const std::string& name) {
  auto it = Classes().find(name);
  return it == Classes().end() ? nullptr : &it->second;
}

std::vector<std::string> TwinClassNames() {
  return {"orin-agx", "xavier-agx", "xavier-nx", "nano",
          "orin-nx", "orin-nano", "thor"};
}

}  // namespace powersweep
