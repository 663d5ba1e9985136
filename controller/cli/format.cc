#include "controller/cli/format.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "common/csv_cell.h"

namespace powersweep {

absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  return absl::InvalidArgumentError(absl::StrCat(
      "--format: unknown format '", name, "' (known: table, csv, json)"));
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

namespace {

bool IsNumeric(const Table& t, size_t col) {
  return col < t.numeric.size() && t.numeric[col];
}

std::string RenderText(const Table& t) {
  std::vector<size_t> width(t.header.size(), 0);
  for (size_t c = 0; c < t.header.size(); ++c) width[c] = t.header[c].size();
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
      if (c > 0) out += "  ";
      out += IsNumeric(t, c) ? pad + cell : cell + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(t.header);
  for (const auto& row : t.rows) out += line(row);
  return out;
}


// True when `s` is a number in JSON's grammar (no "+5", ".5", "5.", "nan").
bool IsJsonNumber(absl::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && absl::ascii_isdigit(s[i])) ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

bool IsMissing(absl::string_view cell) { return cell.empty() || cell == "-"; }

// Splits "a SEP b" into its two halves; false when SEP is absent.
bool SplitPair(absl::string_view cell, absl::string_view sep,
               absl::string_view* a, absl::string_view* b) {
  const size_t at = cell.find(sep);
  if (at == absl::string_view::npos) return false;
  *a = cell.substr(0, at);
  *b = cell.substr(at + sep.size());
  return true;
}

// A JSON value for one cell: null when missing, a number in a numeric
// column when it reads as one, otherwise a string.
std::string JsonValue(absl::string_view cell, bool numeric) {
  if (IsMissing(cell)) return "null";
  absl::string_view unsigned_cell = cell;
  absl::ConsumePrefix(&unsigned_cell, "+");  // "+1.25" (a difference)
  if (numeric && IsJsonNumber(unsigned_cell)) {
    return std::string(unsigned_cell);
  }
  // "[low, high]" (a confidence interval) becomes a two-number array.
  absl::string_view inner = cell;
  absl::string_view low, high;
  if (absl::ConsumePrefix(&inner, "[") && absl::ConsumeSuffix(&inner, "]") &&
      SplitPair(inner, ", ", &low, &high)) {
    absl::ConsumePrefix(&low, "+");
    absl::ConsumePrefix(&high, "+");
    if (IsJsonNumber(low) && IsJsonNumber(high)) {
      return absl::StrCat("[", low, ", ", high, "]");
    }
  }
  return JsonString(std::string(cell));
}

constexpr absl::string_view kPlusMinus = " ± ";

// A column of "mean ± sd" cells (text tables show them so) becomes two
// JSON fields, NAME and NAME_sd; a numeric column of "done/total" counts
// becomes NAME and NAME_total. Columns are typed as a whole so every
// object has the same keys.
// A numeric column of "12.5%" cells becomes numbers under the key
// NAME_pct (NAME when it already ends in "_pct").
enum class JsonColumn { kPlain, kMeanSd, kCountOfTotal, kPercent };

// The number of a "12.5%" cell, or false.
bool PercentNumber(absl::string_view cell, absl::string_view* number) {
  absl::string_view n = cell;
  absl::ConsumePrefix(&n, "+");
  if (!absl::ConsumeSuffix(&n, "%") || !IsJsonNumber(n)) return false;
  *number = n;
  return true;
}

JsonColumn ColumnKind(const Table& t, size_t col) {
  bool mean_sd = col < t.mean_sd.size() && t.mean_sd[col];
  bool ratio = IsNumeric(t, col);
  bool percent = IsNumeric(t, col);
  bool any = false;
  for (const auto& row : t.rows) {
    if (col >= row.size() || IsMissing(row[col])) continue;
    any = true;
    absl::string_view a, b;
    if (SplitPair(row[col], kPlusMinus, &a, &b)) mean_sd = true;
    if (!SplitPair(row[col], "/", &a, &b) || !IsJsonNumber(a) ||
        !IsJsonNumber(b)) {
      ratio = false;
    }
    if (!PercentNumber(row[col], &a)) percent = false;
  }
  if (mean_sd) return JsonColumn::kMeanSd;
  if (any && percent) return JsonColumn::kPercent;
  return any && ratio ? JsonColumn::kCountOfTotal : JsonColumn::kPlain;
}

std::string RenderJson(const Table& t) {
  std::vector<JsonColumn> kinds;
  for (size_t c = 0; c < t.header.size(); ++c) kinds.push_back(ColumnKind(t, c));
  std::vector<std::string> objects;
  for (const auto& row : t.rows) {
    std::vector<std::string> fields;
    for (size_t c = 0; c < t.header.size() && c < row.size(); ++c) {
      const std::string key = JsonString(t.header[c]);
      absl::string_view a = row[c], b;
      switch (kinds[c]) {
        case JsonColumn::kPlain:
          fields.push_back(absl::StrCat(key, ": ", JsonValue(a, IsNumeric(t, c))));
          break;
        case JsonColumn::kMeanSd:
          if (!SplitPair(row[c], kPlusMinus, &a, &b)) b = "";
          fields.push_back(absl::StrCat(key, ": ", JsonValue(a, true)));
          fields.push_back(absl::StrCat(JsonString(t.header[c] + "_sd"), ": ",
                                        JsonValue(b, true)));
          break;
        case JsonColumn::kPercent: {
          const std::string& h = t.header[c];
          const bool named = h.size() > 4 && h.substr(h.size() - 4) == "_pct";
          fields.push_back(absl::StrCat(JsonString(named ? h : h + "_pct"),
                                        ": ",
                                        PercentNumber(a, &b) ? std::string(b)
                                                             : "null"));
          break;
        }
        case JsonColumn::kCountOfTotal:
          if (!SplitPair(row[c], "/", &a, &b)) b = "";
          fields.push_back(absl::StrCat(key, ": ", JsonValue(a, true)));
          fields.push_back(absl::StrCat(JsonString(t.header[c] + "_total"),
                                        ": ", JsonValue(b, true)));
          break;
      }
    }
    objects.push_back("  {" + absl::StrJoin(fields, ", ") + "}");
  }
  if (objects.empty()) return "[]\n";
  return "[\n" + absl::StrJoin(objects, ",\n") + "\n]\n";
}

}  // namespace

std::string RenderTable(const Table& t, OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return RenderText(t);
    case OutputFormat::kCsv: {
      std::string out = CsvLine(t.header);
      for (const auto& row : t.rows) out += CsvLine(row);
      return out;
    }
    case OutputFormat::kJson:
      return RenderJson(t);
  }
  return "";
}

std::string FormatDuration(double seconds) {
  if (!(seconds >= 0) || std::isinf(seconds)) return "?";
  const int64_t s = static_cast<int64_t>(std::llround(seconds));
  if (s >= 3600) {
    return absl::StrFormat("%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60);
  }
  return absl::StrFormat("%d:%02d", s / 60, s % 60);
}

std::string ProgressLine(const v1::SweepStatus& st, double elapsed_s) {
  constexpr int kBar = 20;
  const int total = std::max(st.total(), 1);
  const int ended = st.done() + st.failed() + st.cancelled();
  const int filled = kBar * ended / total;
  std::string line = absl::StrCat(
      "[", std::string(filled, '#'), std::string(kBar - filled, '.'), "] ",
      absl::StrFormat("%*d/%d done", static_cast<int>(
                                         std::to_string(st.total()).size()),
                      st.done(), st.total()));
  if (st.failed() > 0) absl::StrAppend(&line, "  ", st.failed(), " failed");
  if (st.cancelled() > 0) {
    absl::StrAppend(&line, "  ", st.cancelled(), " cancelled");
  }
  absl::StrAppend(&line, "  ", st.active(), " running  elapsed ",
                  FormatDuration(elapsed_s));
  const int remaining = st.pending() + st.active();
  if (st.finished()) {
    absl::StrAppend(&line, "  finished");
  } else if (st.active() == 0 && st.waiting_size() > 0) {
    // Nothing runs and nothing can: no time left to estimate.
    absl::StrAppend(&line, "  stalled");
  } else if (ended > 0 && elapsed_s > 0) {
    const double left = remaining * elapsed_s / ended;
    absl::StrAppend(&line, "  left ~", FormatDuration(left));
  } else {
    absl::StrAppend(&line, "  left ?");
  }
  // Why runs wait (SweepStatus.waiting): "2 runs wait for a xavier-nx:
  // xavier-nx-twin-0 is drained".
  if (!st.finished() && st.waiting_size() > 0) {
    absl::StrAppend(&line, "  | ", absl::StrJoin(st.waiting(), "; "));
  }
  return line;
}

}  // namespace powersweep
