#include "controller/cli/format.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace powersweep {

absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  return absl::InvalidArgumentError(absl::StrCat(
      "--format: unknown format '", name, "' (known: table, csv, json)"));
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\"", "\"\""}}), "\"");
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

}  // namespace

std::string RenderTable(const Table& t, OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return RenderText(t);
    case OutputFormat::kCsv: {
      std::string out;
      auto line = [&](const std::vector<std::string>& cells) {
        std::vector<std::string> quoted;
        for (const auto& c : cells) quoted.push_back(CsvField(c));
        out += absl::StrJoin(quoted, ",") + "\n";
      };
      line(t.header);
      for (const auto& row : t.rows) line(row);
      return out;
    }
    case OutputFormat::kJson: {
      std::vector<std::string> objects;
      for (const auto& row : t.rows) {
        std::vector<std::string> fields;
        for (size_t c = 0; c < t.header.size() && c < row.size(); ++c) {
          const bool raw = IsNumeric(t, c) && !row[c].empty() &&
                           row[c] != "-";
          fields.push_back(absl::StrCat(JsonString(t.header[c]), ": ",
                                        raw ? row[c] : JsonString(row[c])));
        }
        objects.push_back("  {" + absl::StrJoin(fields, ", ") + "}");
      }
      return "[\n" + absl::StrJoin(objects, ",\n") + "\n]\n";
    }
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
  } else if (ended > 0 && elapsed_s > 0) {
    const double left = remaining * elapsed_s / ended;
    absl::StrAppend(&line, "  left ~", FormatDuration(left));
  } else {
    absl::StrAppend(&line, "  left ?");
  }
  return line;
}

}  // namespace powersweep
