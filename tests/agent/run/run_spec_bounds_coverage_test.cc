// The agent's bounds table covers the RunSpec proto: every numeric field
// (int32, int64, uint32, uint64, float, double; repeated or not; in any
// sub-message) has a row, every row names such a field, and for every row
// a value past its limit (and NaN / infinity for reals) is rejected with
// that field named. A field added to the proto without a row fails the
// first test with its path.
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "agent/run/run_spec_bounds.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using ::testing::HasSubstr;

bool IsNumeric(const FieldDescriptor* f) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
    case FieldDescriptor::CPPTYPE_FLOAT:
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return true;
    default:
      return false;
  }
}

// Paths ("settle.seconds") of every numeric field under `d`.
void NumericPaths(const Descriptor* d, const std::string& prefix,
                  std::set<const Descriptor*>* open,
                  std::set<std::string>* out) {
  if (!open->insert(d).second) return;  // a recursive message: seen above
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const std::string path = prefix.empty() ? f->name() : prefix + "." + f->name();
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      NumericPaths(f->message_type(), path, open, out);
    } else if (IsNumeric(f)) {
      out->insert(path);
    }
  }
  open->erase(d);
}

std::set<std::string> TablePaths() {
  std::set<std::string> paths;
  for (const NumericFieldBound& b : RunSpecNumericBounds()) {
    EXPECT_TRUE(paths.insert(b.field).second) << "two rows for " << b.field;
  }
  return paths;
}

TEST(RunSpecBoundsCoverage, EveryNumericFieldOfTheProtoHasARow) {
  std::set<std::string> proto;
  std::set<const Descriptor*> open;
  NumericPaths(v1::RunSpec::descriptor(), "", &open, &proto);
  ASSERT_GE(proto.size(), 23u);  // RunSpec as of this test; only grows
  const std::set<std::string> table = TablePaths();
  std::vector<std::string> missing;
  for (const std::string& p : proto) {
    if (!table.count(p)) missing.push_back(p);
  }
  EXPECT_TRUE(missing.empty())
      << "numeric RunSpec fields without a row in RunSpecNumericBounds() "
         "(agent/run/run_spec_bounds.cc): "
      << absl::StrJoin(missing, ", ");
  std::vector<std::string> stale;
  for (const std::string& p : table) {
    if (!proto.count(p)) stale.push_back(p);
  }
  EXPECT_TRUE(stale.empty()) << "rows naming no numeric RunSpec field: "
                             << absl::StrJoin(stale, ", ");
}

// The leaf field of `path` and the message holding it (sub-messages are
// created on the way).
const FieldDescriptor* Leaf(Message* m, const std::string& path,
                            Message** holder) {
  const std::vector<std::string> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const FieldDescriptor* f = m->GetDescriptor()->FindFieldByName(parts[i]);
    if (f == nullptr || f->is_repeated()) return nullptr;
    m = m->GetReflection()->MutableMessage(m, f);
  }
  *holder = m;
  return m->GetDescriptor()->FindFieldByName(parts.back());
}

// Sets the (singular) numeric field at `path` to `v`, converted to its type.
void Set(v1::RunSpec* spec, const std::string& path, double v) {
  Message* m = nullptr;
  const FieldDescriptor* f = Leaf(spec, path, &m);
  ASSERT_NE(f, nullptr) << path;
  ASSERT_FALSE(f->is_repeated()) << path << ": extend Set for repeated";
  const auto* r = m->GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(m, f, static_cast<int32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(m, f, static_cast<int64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      r->SetUInt32(m, f, static_cast<uint32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(m, f, static_cast<uint64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      r->SetFloat(m, f, static_cast<float>(v));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(m, f, v);
      break;
    default:
      FAIL() << path << " is not numeric";
  }
}

FieldDescriptor::CppType TypeOf(const std::string& path) {
  v1::RunSpec spec;
  Message* m = nullptr;
  const FieldDescriptor* f = Leaf(&spec, path, &m);
  return f == nullptr ? FieldDescriptor::CPPTYPE_MESSAGE : f->cpp_type();
}

std::string Rejection(const v1::RunSpec& spec) {
  absl::Status s = CheckRunSpecBounds(spec);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  return std::string(s.message());
}

TEST(RunSpecBoundsCoverage, EveryRowRejectsValuesPastItsLimitsNamingTheField) {
  EXPECT_TRUE(CheckRunSpecBounds(v1::RunSpec()).ok());  // all unset
  for (const NumericFieldBound& b : RunSpecNumericBounds()) {
    SCOPED_TRACE(b.field);
    const std::string named = std::string(b.field) + ": ";
    const FieldDescriptor::CppType type = TypeOf(b.field);
    const bool real = type == FieldDescriptor::CPPTYPE_FLOAT ||
                      type == FieldDescriptor::CPPTYPE_DOUBLE;
    const bool is_unsigned = type == FieldDescriptor::CPPTYPE_UINT32 ||
                             type == FieldDescriptor::CPPTYPE_UINT64;
    // Full-range ids and seeds: their limit is the type's own.
    const bool full_range = b.max >= 1e18;
    v1::RunSpec spec;
    Set(&spec, b.field, full_range ? 1e18 : b.max);
    EXPECT_TRUE(CheckRunSpecBounds(spec).ok()) << "at the limit";
    Set(&spec, b.field, b.min);
    EXPECT_TRUE(CheckRunSpecBounds(spec).ok()) << "at the minimum";
    if (!full_range) {
      Set(&spec, b.field, b.max + 1);
      EXPECT_THAT(Rejection(spec),
                  HasSubstr(named))  // e.g. "tenants: 65 is more than ..."
          << "above " << b.max;
      EXPECT_THAT(Rejection(spec), HasSubstr("is more than the limit of"));
    }
    if (b.min > 0) {
      Set(&spec, b.field, real ? b.min / 2 : b.min - 1);
      if (b.min - 1 != 0 || real || b.zero_means == nullptr) {
        EXPECT_THAT(Rejection(spec), HasSubstr(named)) << "below " << b.min;
      }
    }
    if (!is_unsigned && b.min >= 0) {
      Set(&spec, b.field, -1);
      EXPECT_THAT(Rejection(spec), HasSubstr(named)) << "-1";
    } else if (b.min < 0) {  // -1 means something (warmup_minibatches)
      Set(&spec, b.field, b.min - 1);
      EXPECT_THAT(Rejection(spec), HasSubstr(named)) << "below " << b.min;
    }
    if (real) {
      for (double bad : {std::nan(""), std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(), 1e308}) {
        Set(&spec, b.field, bad);
        EXPECT_THAT(Rejection(spec), HasSubstr(named)) << bad;
      }
    }
  }
}

}  // namespace
}  // namespace powersweep
