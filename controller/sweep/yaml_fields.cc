#include "controller/sweep/yaml_fields.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {

using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

int LineOf(const YAML::Node& node) { return node.Mark().line + 1; }

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return absl::StrCat("'", node.Scalar(), "'");
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "nothing";
  }
}

std::string EnumSpelling(const EnumValueDescriptor* value) {
  // Values are prefixed with their type in UPPER_SNAKE (TASK_, RUNTIME_,
  // PAGE_CACHE_): TaskType -> "TASK_", PageCache -> "PAGE_CACHE_".
  std::string prefix;
  for (char c : value->type()->name()) {
    if (absl::ascii_isupper(c) && !prefix.empty()) prefix.push_back('_');
    prefix.push_back(absl::ascii_toupper(c));
  }
  prefix.push_back('_');
  std::string name = value->name();
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  return absl::AsciiStrToLower(name);
}

namespace {

std::vector<std::string> EnumChoices(const FieldDescriptor* field) {
  std::vector<std::string> out;
  const auto* type = field->enum_type();
  for (int i = 0; i < type->value_count(); ++i) {
    if (type->value(i)->number() != 0)
      out.push_back(EnumSpelling(type->value(i)));
  }
  return out;
}

void Problem(const YAML::Node& node, const std::string& where,
             const std::string& what, std::vector<std::string>* problems) {
  problems->push_back(
      absl::StrCat(where, " at line ", LineOf(node), ": ", what));
}

// Parses an integer of type T; false after recording a problem.
template <typename T>
bool ReadInteger(const YAML::Node& node, const FieldDescriptor* field,
                 const std::string& where, T* out,
                 std::vector<std::string>* problems) {
  const std::string& text = node.Scalar();
  if (absl::SimpleAtoi(text, out)) return true;
  const size_t sign = (!text.empty() && (text[0] == '-' || text[0] == '+'));
  if (text.size() > sign &&
      text.find_first_not_of("0123456789", sign) == std::string::npos) {
    Problem(
        node, where,
        absl::StrCat(text, " is out of range (", std::numeric_limits<T>::min(),
                     " to ", std::numeric_limits<T>::max(), ")"),
        problems);
  } else {
    Problem(
        node, where,
        absl::StrCat("expected ", Expected(field), ", got ", Describe(node)),
        problems);
  }
  return false;
}

}  // namespace

std::string Expected(const FieldDescriptor* field) {
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
      return "an integer";
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return "a non-negative integer";
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      return "a number";
    case FieldDescriptor::CPPTYPE_ENUM:
      return absl::StrCat("one of ", absl::StrJoin(EnumChoices(field), ", "));
    case FieldDescriptor::CPPTYPE_BOOL:
      return "true or false";
    default:
      return "a string";
  }
}

std::string FieldNames(const google::protobuf::Descriptor* descriptor) {
  std::vector<std::string> names;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    names.push_back(descriptor->field(i)->name());
  }
  return absl::StrJoin(names, ", ");
}

bool ReadNumber(const YAML::Node& node, const std::string& where, double* out,
                std::vector<std::string>* problems) {
  if (node.IsScalar() && absl::SimpleAtod(node.Scalar(), out) &&
      std::isfinite(*out)) {
    return true;
  }
  Problem(node, where, absl::StrCat("expected a number, got ", Describe(node)),
          problems);
  return false;
}

void ReadScalarInto(const YAML::Node& node, const FieldDescriptor* field,
                    Message* msg, const std::string& where,
                    std::vector<std::string>* problems) {
  if (!node.IsScalar()) {
    Problem(
        node, where,
        absl::StrCat("expected ", Expected(field), ", got ", Describe(node)),
        problems);
    return;
  }
  const Reflection* r = msg->GetReflection();
  const bool rep = field->is_repeated();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      int32_t v;
      if (!ReadInteger(node, field, where, &v, problems)) return;
      rep ? r->AddInt32(msg, field, v) : r->SetInt32(msg, field, v);
      return;
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      int64_t v;
      if (!ReadInteger(node, field, where, &v, problems)) return;
      rep ? r->AddInt64(msg, field, v) : r->SetInt64(msg, field, v);
      return;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v;
      if (!ReadInteger(node, field, where, &v, problems)) return;
      rep ? r->AddUInt64(msg, field, v) : r->SetUInt64(msg, field, v);
      return;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      double v;
      if (!ReadNumber(node, where, &v, problems)) return;
      rep ? r->AddDouble(msg, field, v) : r->SetDouble(msg, field, v);
      return;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const std::string want = absl::AsciiStrToLower(node.Scalar());
      const auto* type = field->enum_type();
      for (int i = 0; i < type->value_count(); ++i) {
        const EnumValueDescriptor* v = type->value(i);
        if (v->number() != 0 && EnumSpelling(v) == want) {
          rep ? r->AddEnumValue(msg, field, v->number())
              : r->SetEnumValue(msg, field, v->number());
          return;
        }
      }
      Problem(
          node, where,
          absl::StrCat("expected ", Expected(field), ", got ", Describe(node)),
          problems);
      return;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      const std::string v = absl::AsciiStrToLower(node.Scalar());
      bool b = false;
      if (v == "true" || v == "yes" || v == "on") {
        b = true;
      } else if (v != "false" && v != "no" && v != "off") {
        Problem(node, where,
                absl::StrCat("expected true or false, got ", Describe(node)),
                problems);
        return;
      }
      rep ? r->AddBool(msg, field, b) : r->SetBool(msg, field, b);
      return;
    }
    case FieldDescriptor::CPPTYPE_STRING:
      rep ? r->AddString(msg, field, node.Scalar())
          : r->SetString(msg, field, node.Scalar());
      return;
    default:
      Problem(node, where, "this field cannot be set from a sweep file",
              problems);
  }
}

}  // namespace powersweep
