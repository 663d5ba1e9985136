#include "agent/trace/tracepoint_format.h"

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace powersweep {
namespace {

// "field:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;"
absl::StatusOr<TracepointField> ParseFieldLine(absl::string_view line) {
  TracepointField f;
  bool have_offset = false;
  bool have_size = false;
  for (absl::string_view part : absl::StrSplit(line, ';')) {
    part = absl::StripAsciiWhitespace(part);
    if (absl::ConsumePrefix(&part, "field:")) {
      // The declaration's last word is the name: "char rwbs[10]" -> rwbs.
      absl::string_view decl = absl::StripAsciiWhitespace(part);
      size_t space = decl.find_last_of(" \t");
      absl::string_view name =
          space == absl::string_view::npos ? decl : decl.substr(space + 1);
      size_t bracket = name.find('[');
      if (bracket != absl::string_view::npos) name = name.substr(0, bracket);
      f.name = std::string(name);
    } else if (absl::ConsumePrefix(&part, "offset:")) {
      have_offset = absl::SimpleAtoi(part, &f.offset);
    } else if (absl::ConsumePrefix(&part, "size:")) {
      have_size = absl::SimpleAtoi(part, &f.size);
    } else if (absl::ConsumePrefix(&part, "signed:")) {
      f.is_signed = part == "1";
    }
  }
  if (f.name.empty() || !have_offset || !have_size || f.offset < 0 ||
      f.size <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed field line '", line, "'"));
  }
  return f;
}

// Every __print_symbolic(REC->FIELD, { N, "name" }, ...) in `fmt`.
void ParseSymbols(absl::string_view fmt,
                  std::map<std::string, std::map<int64_t, std::string>>* out) {
  constexpr absl::string_view kCall = "__print_symbolic(REC->";
  size_t at = 0;
  while ((at = fmt.find(kCall, at)) != absl::string_view::npos) {
    at += kCall.size();
    size_t comma = fmt.find(',', at);
    if (comma == absl::string_view::npos) return;
    std::string field(absl::StripAsciiWhitespace(fmt.substr(at, comma - at)));
    auto& table = (*out)[field];
    // Pairs until the call's closing parenthesis.
    size_t pos = comma;
    while (pos < fmt.size()) {
      size_t open = fmt.find_first_of("{)", pos);
      if (open == absl::string_view::npos || fmt[open] == ')') break;
      size_t close = fmt.find('}', open);
      if (close == absl::string_view::npos) return;
      absl::string_view pair = fmt.substr(open + 1, close - open - 1);
      std::pair<absl::string_view, absl::string_view> kv =
          absl::StrSplit(pair, absl::MaxSplits(',', 1));
      int64_t number = 0;
      absl::string_view name = absl::StripAsciiWhitespace(kv.second);
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(kv.first), &number) &&
          absl::ConsumePrefix(&name, "\"") && absl::ConsumeSuffix(&name, "\"")) {
        table[number] = std::string(name);
      }
      pos = close + 1;
    }
    at = pos;
  }
}

}  // namespace

const TracepointField* TracepointFormat::Field(absl::string_view field) const {
  for (const TracepointField& f : fields) {
    if (f.name == field) return &f;
  }
  return nullptr;
}

absl::StatusOr<TracepointFormat> ParseTracepointFormat(absl::string_view text) {
  TracepointFormat out;
  bool have_id = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::string_view t = absl::StripAsciiWhitespace(line);
    if (absl::ConsumePrefix(&t, "name:")) {
      out.name = std::string(absl::StripAsciiWhitespace(t));
    } else if (absl::ConsumePrefix(&t, "ID:")) {
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(t), &out.id)) {
        return absl::InvalidArgumentError(
            absl::StrCat("malformed ID line '", line, "'"));
      }
      have_id = true;
    } else if (absl::StartsWith(t, "field:")) {
      absl::StatusOr<TracepointField> f = ParseFieldLine(t);
      if (!f.ok()) return f.status();
      out.fields.push_back(*std::move(f));
    } else if (absl::ConsumePrefix(&t, "print fmt:")) {
      ParseSymbols(t, &out.symbols);
    }
  }
  if (!have_id) return absl::InvalidArgumentError("no ID line");
  return out;
}

std::optional<int64_t> ReadField(const TracepointField& field,
                                 const uint8_t* record, size_t record_size) {
  if (field.offset < 0 ||
      static_cast<size_t>(field.offset) + field.size > record_size) {
    return std::nullopt;
  }
  const uint8_t* p = record + field.offset;
  switch (field.size) {
    case 1: {
      uint8_t v;
      std::memcpy(&v, p, 1);
      return field.is_signed ? int64_t{static_cast<int8_t>(v)} : int64_t{v};
    }
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return field.is_signed ? int64_t{static_cast<int16_t>(v)} : int64_t{v};
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return field.is_signed ? int64_t{static_cast<int32_t>(v)} : int64_t{v};
    }
    case 8: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<int64_t>(v);
    }
    default:
      return std::nullopt;
  }
}

std::string ReadCharField(const TracepointField& field, const uint8_t* record,
                          size_t record_size) {
  if (field.offset < 0 ||
      static_cast<size_t>(field.offset) + field.size > record_size) {
    return "";
  }
  const char* p = reinterpret_cast<const char*>(record + field.offset);
  return std::string(p, strnlen(p, static_cast<size_t>(field.size)));
}

}  // namespace powersweep
