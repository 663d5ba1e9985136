#include "common/csv_cell.h"

#include "absl/strings/ascii.h"

namespace powersweep {
namespace {

// Advances `i` over digits; returns how many there were.
size_t SkipDigits(absl::string_view s, size_t* i) {
  const size_t start = *i;
  while (*i < s.size() && absl::ascii_isdigit(static_cast<unsigned char>(s[*i]))) {
    ++*i;
  }
  return *i - start;
}

bool StartsLikeFormula(absl::string_view value) {
  if (value.empty()) return false;
  switch (value[0]) {
    case '=':
    case '+':
    case '-':
    case '@':
    case '\t':
    case '\r':
      return true;
    default:
      return false;
  }
}

}  // namespace

bool IsPlainNumber(absl::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = SkipDigits(s, &i);
  if (i < s.size() && s[i] == '.') {
    ++i;
    digits += SkipDigits(s, &i);
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (SkipDigits(s, &i) == 0) return false;
  }
  return i == s.size();
}

std::string NeutralizeFormula(absl::string_view value) {
  if (!StartsLikeFormula(value) || IsPlainNumber(value) || value == "-") {
    return std::string(value);
  }
  std::string out = "'";
  out.append(value.data(), value.size());
  return out;
}

void AppendCsvCell(absl::string_view raw, std::string* out) {
  const std::string value = NeutralizeFormula(raw);
  if (value.find_first_of(",\"\r\n") == std::string::npos) {
    out->append(value);
    return;
  }
  out->push_back('"');
  for (char c : value) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

std::string CsvCell(absl::string_view value) {
  std::string out;
  AppendCsvCell(value, &out);
  return out;
}

std::string CsvLine(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendCsvCell(cells[i], &out);
  }
  out.push_back('\n');
  return out;
}

}  // namespace powersweep
