#include "agent/runtime/record_line.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "common/proto_json.h"

namespace powersweep {
namespace {

// A cursor over the line; every method returns false on anything it does
// not expect (the caller then falls back to the JSON parser).
class Scanner {
 public:
  explicit Scanner(absl::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && IsJsonSpace(text_[pos_])) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  // A key without escapes: "[a-z0-9_]*".
  bool Key(absl::string_view* key) {
    if (!Consume('"')) return false;
    const size_t start = pos_;
    while (pos_ < text_.size() && (absl::ascii_islower(text_[pos_]) ||
                                   absl::ascii_isdigit(text_[pos_]) || text_[pos_] == '_')) {
      ++pos_;
    }
    *key = text_.substr(start, pos_ - start);
    return pos_ < text_.size() && text_[pos_++] == '"';
  }
  // -?(0|[1-9][0-9]*), optionally quoted, no "-0".
  bool Integer(int64_t* out) {
    SkipSpace();
    const bool quoted = pos_ < text_.size() && text_[pos_] == '"';
    if (quoted) ++pos_;
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const size_t digits = pos_;
    while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
    const size_t n = pos_ - digits;
    if (n == 0 || (text_[digits] == '0' && (n > 1 || digits > start))) {
      return false;  // empty, leading zero or "-0"
    }
    if (quoted && (pos_ >= text_.size() || text_[pos_++] != '"')) return false;
    // SimpleAtoi refuses values out of int64 range.
    return absl::SimpleAtoi(text_.substr(start, digits - start + n), out);
  }
  // A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, finite.
  bool Number(double* out) {
    SkipSpace();
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const size_t int_start = pos_;
    if (!Digits()) return false;
    if (text_[int_start] == '0' && pos_ - int_start > 1) return false;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!Digits()) return false;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!Digits()) return false;
    }
    return absl::SimpleAtod(text_.substr(start, pos_ - start), out) &&
           std::isfinite(*out);
  }

 private:
  static bool IsJsonSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  }
  bool Digits() {
    const size_t start = pos_;
    while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
    return pos_ > start;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

bool Int32(Scanner& in, int32_t* out) {
  int64_t v = 0;
  if (!in.Integer(&v) || v < std::numeric_limits<int32_t>::min() ||
      v > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *out = static_cast<int32_t>(v);
  return true;
}

// One member "key": value into `r`; `seen` guards against duplicates.
bool Member(Scanner& in, v1::MinibatchRecord* r, uint32_t* seen) {
  absl::string_view key;
  if (!in.Key(&key) || !in.Consume(':')) return false;
  int bit = -1;
  bool ok = false;
  int32_t i32 = 0;
  int64_t i64 = 0;
  double d = 0;
  if (key == "epoch") {
    bit = 0;
    ok = Int32(in, &i32);
    r->set_epoch(i32);
  } else if (key == "index") {
    bit = 1;
    ok = in.Integer(&i64);
    r->set_index(i64);
  } else if (key == "samples") {
    bit = 2;
    ok = Int32(in, &i32);
    r->set_samples(i32);
  } else if (key == "tenant") {
    bit = 3;
    ok = Int32(in, &i32);
    r->set_tenant(i32);
  } else if (key == "tokens") {
    bit = 10;
    ok = in.Integer(&i64);
    r->set_tokens(i64);
  } else {
    ok = in.Number(&d);
    if (key == "t_start_s") {
      bit = 4;
      r->set_t_start_s(d);
    } else if (key == "stall_s") {
      bit = 5;
      r->set_stall_s(d);
    } else if (key == "compute_s") {
      bit = 6;
      r->set_compute_s(d);
    } else if (key == "e2e_s") {
      bit = 7;
      r->set_e2e_s(d);
    } else if (key == "loss") {
      bit = 8;
      r->set_loss(d);
    } else if (key == "page_cache_resident") {
      bit = 9;
      r->set_page_cache_resident(d);
    } else if (key == "ttft_s") {
      bit = 11;
      r->set_ttft_s(d);
    } else if (key == "per_token_s") {
      bit = 12;
      r->set_per_token_s(d);
    }
  }
  if (!ok || bit < 0 || (*seen & (1u << bit)) != 0) return false;
  *seen |= 1u << bit;
  return true;
}

}  // namespace

bool ParseMinibatchLine(absl::string_view line, v1::MinibatchRecord* record) {
  record->Clear();
  Scanner in(line);
  absl::string_view key;
  if (!in.Consume('{') || !in.Key(&key) || key != "minibatch" || !in.Consume(':') ||
      !in.Consume('{')) {
    return false;
  }
  uint32_t seen = 0;
  if (!in.Peek('}')) {
    do {
      if (!Member(in, record, &seen)) return false;
    } while (in.Consume(','));
  }
  return in.Consume('}') && in.Consume('}') && in.AtEnd();
}

absl::Status ParseRecordLine(absl::string_view line, v1::WorkloadEvent* event) {
  if (ParseMinibatchLine(line, event->mutable_minibatch())) return absl::OkStatus();
  event->Clear();
  return FromJson(std::string(line), event);
}

}  // namespace powersweep
