// `powersweep variability` output: a VariabilityResponse (control.proto) as
// text, CSV or JSON. Pure functions; thread-safe.
//
// Text: per cell its label, then per metric one row per device (runs n,
// mean, 95% CI of the mean, mean start temperature, deviation from the
// other devices' mean, outlier) and an "across" line (between- and
// within-device SD, ICC, CV of the device means, F-test p-value, max/min
// of the device means, outlier devices); then the warnings and the
// method. A missing figure is "-".
//
// CSV: a header, then per cell and metric one row per device (kind
// "device") and one across the devices (kind "across"). Columns:
//   cell, metric, unit, kind, device,
//   n             device: its runs; across: all runs
//   mean, sd      device: of its runs; across: of the device means
//   ci_low, ci_high, start_temp_c, pi_low, pi_high, deviation_pct, outlier
//                 device rows only (pi_*: the prediction interval from the
//                 other devices' means; deviation_pct: from their mean;
//                 outlier: true/false, empty with fewer than 3 devices)
//   sd_between, sd_within, icc, cv_pct, f, p_value, max_min, outliers
//                 across rows only (outliers: device ids joined by ';')
// An empty cell is a figure that is missing or does not apply. Warnings
// and the method are not part of the CSV (the CLI prints them on stderr).
//
// JSON: one object {"sweep_id", "method", "warnings", "saved_offsets":
// [{"device", "device_class", "metric", "factor", "cells", "runs"}],
// "cells": [{"label", "devices", "run_ids", "warnings", "metrics": [{"name",
// "label", "unit", "devices": [per-device objects], "across": {...}}]}]},
// numbers as JSON numbers and null for a missing figure (or a non-finite
// F).
//
// SavedOffsetsText: the offsets --save-offsets stored, one line per device
// ("xavier-0  time x0.952  energy x0.948  (2 cells, 6 runs)"); "" when
// none were saved.
#ifndef POWERSWEEP_CONTROLLER_CLI_VARIABILITY_FORMAT_H_
#define POWERSWEEP_CONTROLLER_CLI_VARIABILITY_FORMAT_H_

#include <string>

#include "powersweep/v1/control.pb.h"

namespace powersweep {

std::string VariabilityText(const ::powersweep::v1::VariabilityResponse& r);
std::string VariabilityCsv(const ::powersweep::v1::VariabilityResponse& r);
std::string VariabilityJson(const ::powersweep::v1::VariabilityResponse& r);
std::string SavedOffsetsText(const ::powersweep::v1::VariabilityResponse& r);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_VARIABILITY_FORMAT_H_
