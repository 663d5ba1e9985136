#include "controller/sweep/sweep_file.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/sweep/yaml_fields.h"
#include "yaml-cpp/yaml.h"

namespace powersweep {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Convenience keys of a power mode map, converted to the proto's units.
struct MhzKey {
  const char* key;
  const char* field;
  double factor;
};
constexpr MhzKey kMhzKeys[] = {{"cpu_freq_mhz", "cpu_freq_khz", 1e3},
                               {"gpu_freq_mhz", "gpu_freq_hz", 1e6},
                               {"mem_freq_mhz", "mem_freq_hz", 1e6}};

// Levenshtein distance, for "did you mean" hints on misspelled keys.
size_t Distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                         prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    prev.swap(cur);
  }
  return prev[b.size()];
}

std::string UnknownKey(const YAML::Node& key, const std::string& in,
                       const std::vector<std::string>& known) {
  std::string msg = absl::StrCat(
      "unknown key '", key.Scalar(), "'", in, " at line ", LineOf(key),
      " (known keys: ", absl::StrJoin(known, ", "), ")");
  for (const std::string& k : known) {
    const std::string& typed = key.Scalar();
    const bool prefix = typed.size() >= 4 && k.rfind(typed, 0) == 0;
    if (prefix || Distance(k, typed) <= 2) {
      absl::StrAppend(&msg, "; did you mean '", k, "'?");
      break;
    }
  }
  return msg;
}

// The keys a map of `d` takes in the file: its fields, but for SweepSpec
// not power_mode_classes (written in each power_modes entry).
std::vector<std::string> KnownKeys(const Descriptor* d) {
  std::vector<std::string> keys = absl::StrSplit(FieldNames(d), ", ");
  keys.erase(std::remove(keys.begin(), keys.end(), "power_mode_classes"),
             keys.end());
  return keys;
}

class Reader {
 public:
  void ReadSpec(const YAML::Node& root, v1::SweepSpec* spec);
  std::vector<std::string>& problems() { return problems_; }

 private:
  // Reads the mapping's keys; false (with a problem) for a non-name key or
  // a key seen twice.
  bool CheckKey(const YAML::Node& key, const std::string& in,
                std::set<std::string>* seen);
  void ReadItem(const YAML::Node& node, const FieldDescriptor* f,
                v1::SweepSpec* spec, const std::string& where);
  // A singular message of scalar fields (settle).
  void ReadFlatMessage(const YAML::Node& node, const std::string& where,
                       google::protobuf::Message* msg);
  // A power_modes entry; its `device_class`/`device_classes` key goes to
  // `classes`.
  void ReadPowerMode(const YAML::Node& node, const std::string& where,
                     v1::PowerMode* mode, v1::PowerModeClasses* classes);

  std::vector<std::string> problems_;
};

bool Reader::CheckKey(const YAML::Node& key, const std::string& in,
                      std::set<std::string>* seen) {
  if (!key.IsScalar()) {
    problems_.push_back(absl::StrCat("key", in, " at line ", LineOf(key),
                                     ": expected a name, got ", Describe(key)));
    return false;
  }
  if (!seen->insert(key.Scalar()).second) {
    problems_.push_back(absl::StrCat("duplicate key '", key.Scalar(), "'", in,
                                     " at line ", LineOf(key)));
    return false;
  }
  return true;
}

void Reader::ReadSpec(const YAML::Node& root, v1::SweepSpec* spec) {
  const Descriptor* d = v1::SweepSpec::descriptor();
  if (!root.IsMap()) {
    problems_.push_back(absl::StrCat("expected a map of sweep fields (",
                                     absl::StrJoin(KnownKeys(d), ", "),
                                     ") at line ", LineOf(root),
                                     ", got ", Describe(root)));
    return;
  }
  std::set<std::string> seen;
  for (const auto& kv : root) {
    if (!CheckKey(kv.first, "", &seen)) continue;
    const std::string& name = kv.first.Scalar();
    const FieldDescriptor* f = d->FindFieldByName(name);
    if (f == nullptr) {
      problems_.push_back(UnknownKey(kv.first, "", KnownKeys(d)));
      continue;
    }
    if (f->number() == v1::SweepSpec::kPowerModeClassesFieldNumber) {
      problems_.push_back(absl::StrCat(
          name, " at line ", LineOf(kv.first),
          ": give each power_modes entry its classes instead "
          "({preset: MODE_15W, device_class: orin-agx})"));
      continue;
    }
    const YAML::Node& value = kv.second;
    if (value.IsNull()) continue;  // `key:` with nothing = unset
    if (!f->is_repeated() && f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      ReadFlatMessage(value, name,
                      spec->GetReflection()->MutableMessage(spec, f));
    } else if (!f->is_repeated()) {
      ReadScalarInto(value, f, spec, name, &problems_);
    } else if (value.IsSequence()) {
      for (size_t i = 0; i < value.size(); ++i) {
        ReadItem(value[i], f, spec, absl::StrCat(name, "[", i, "]"));
      }
    } else {
      ReadItem(value, f, spec, name);  // a single value for a list axis
    }
  }
}

void Reader::ReadItem(const YAML::Node& node, const FieldDescriptor* f,
                      v1::SweepSpec* spec, const std::string& where) {
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    // The only message-typed axis is power_modes (power_mode_classes is
    // written as each entry's device_classes key, ReadSpec).
    v1::PowerModeClasses classes;
    ReadPowerMode(node, where, spec->add_power_modes(), &classes);
    if (!classes.device_classes().empty()) {
      // One entry per power mode once any entry names classes.
      while (spec->power_mode_classes_size() < spec->power_modes_size()) {
        spec->add_power_mode_classes();
      }
      *spec->mutable_power_mode_classes(spec->power_modes_size() - 1) =
          std::move(classes);
    }
  } else {
    ReadScalarInto(node, f, spec, where, &problems_);
  }
}

void Reader::ReadFlatMessage(const YAML::Node& node, const std::string& where,
                             google::protobuf::Message* msg) {
  const Descriptor* d = msg->GetDescriptor();
  if (!node.IsMap()) {
    problems_.push_back(absl::StrCat(where, " at line ", LineOf(node),
                                     ": expected a map with keys ",
                                     FieldNames(d), ", got ", Describe(node)));
    return;
  }
  const std::string in = absl::StrCat(" in ", where);
  std::set<std::string> seen;
  for (const auto& kv : node) {
    if (!CheckKey(kv.first, in, &seen)) continue;
    const FieldDescriptor* f = d->FindFieldByName(kv.first.Scalar());
    if (f == nullptr) {
      problems_.push_back(UnknownKey(kv.first, in, KnownKeys(d)));
      continue;
    }
    if (kv.second.IsNull()) continue;
    ReadScalarInto(kv.second, f, msg,
                   absl::StrCat(where, ".", kv.first.Scalar()), &problems_);
  }
}

void Reader::ReadPowerMode(const YAML::Node& node, const std::string& where,
                           v1::PowerMode* mode, v1::PowerModeClasses* classes) {
  const Descriptor* d = v1::PowerMode::descriptor();
  std::vector<std::string> known = KnownKeys(d);
  for (const MhzKey& m : kMhzKeys) known.push_back(m.key);
  known.push_back("device_class");
  known.push_back("device_classes");
  if (node.IsNull()) return;  // an empty mode leaves the device as it is
  if (node.IsScalar()) {
    mode->set_preset(node.Scalar());
    return;
  }
  if (!node.IsMap()) {
    problems_.push_back(
        absl::StrCat(where, " at line ", LineOf(node),
                     ": expected a preset name or a map with keys ",
                     absl::StrJoin(known, ", "), ", got ", Describe(node)));
    return;
  }
  const std::string in = absl::StrCat(" in ", where);
  std::set<std::string> seen;
  for (const auto& kv : node) {
    if (!CheckKey(kv.first, in, &seen)) continue;
    const std::string& name = kv.first.Scalar();
    const std::string at = absl::StrCat(where, ".", name);
    if (kv.second.IsNull()) continue;
    if (name == "device_class" || name == "device_classes") {
      // A class name, or a list of them.
      const YAML::Node& v = kv.second;
      if (v.IsScalar()) {
        classes->add_device_classes(v.Scalar());
      } else if (v.IsSequence() && name == "device_classes") {
        for (size_t i = 0; i < v.size(); ++i) {
          if (v[i].IsScalar()) {
            classes->add_device_classes(v[i].Scalar());
          } else {
            problems_.push_back(absl::StrCat(at, "[", i, "] at line ",
                                             LineOf(v[i]),
                                             ": expected a device class, got ",
                                             Describe(v[i])));
          }
        }
      } else {
        problems_.push_back(absl::StrCat(
            at, " at line ", LineOf(v), ": expected a device class",
            name == "device_classes" ? " or a list of them" : "", ", got ",
            Describe(v)));
      }
      continue;
    }
    const MhzKey* mhz = nullptr;
    for (const MhzKey& m : kMhzKeys) {
      if (name == m.key) mhz = &m;
    }
    if (mhz != nullptr) {
      double value = 0;
      if (!ReadNumber(kv.second, at, &value, &problems_)) continue;
      const double converted = std::round(value * mhz->factor);
      if (std::fabs(converted) > 1e15) {
        problems_.push_back(absl::StrCat(at, " at line ", LineOf(kv.second),
                                         ": ", value, " is out of range"));
        continue;
      }
      mode->GetReflection()->SetInt64(mode, d->FindFieldByName(mhz->field),
                                      static_cast<int64_t>(converted));
      continue;
    }
    const FieldDescriptor* f = d->FindFieldByName(name);
    if (f == nullptr) {
      problems_.push_back(UnknownKey(kv.first, in, known));
      continue;
    }
    ReadScalarInto(kv.second, f, mode, at, &problems_);
  }
  if (seen.count("device_class") > 0 && seen.count("device_classes") > 0) {
    problems_.push_back(absl::StrCat(where, " at line ", LineOf(node),
                                     ": give device_class or device_classes, "
                                     "not both"));
  }
  for (const MhzKey& m : kMhzKeys) {
    if (seen.count(m.key) > 0 && seen.count(m.field) > 0) {
      problems_.push_back(absl::StrCat(where, " at line ", LineOf(node),
                                       ": give ", m.field, " or ", m.key,
                                       ", not both"));
    }
  }
}

// A double-quoted YAML scalar.
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out + "\"";
}

// The shortest text strtod reads back as exactly `v`, in plain notation
// where that is as exact ("10", "600", "0.1"; not "1e+01"): exponents only
// for very large or small magnitudes.
std::string ExactNumber(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 1e15) {
    return absl::StrFormat("%.0f", v);
  }
  for (int digits = 1; digits < 17; ++digits) {
    std::string text = absl::StrFormat("%.*g", digits, v);
    if (std::strtod(text.c_str(), nullptr) != v) continue;
    if (text.find('e') != std::string::npos && std::fabs(v) >= 1e-4) {
      // %g chose an exponent for a magnitude plain notation shows exactly.
      for (int decimals = 1; decimals < 17; ++decimals) {
        const std::string plain = absl::StrFormat("%.*f", decimals, v);
        if (std::strtod(plain.c_str(), nullptr) == v) return plain;
      }
    }
    return text;
  }
  return absl::StrFormat("%.17g", v);
}

std::string MessageYaml(const Message& msg);

// Element `index` of the repeated field `f`, or the singular field when
// `index` is -1, as a YAML value.
std::string ValueYaml(const Message& msg, const FieldDescriptor* f, int index) {
  const Reflection* r = msg.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return absl::StrCat(rep ? r->GetRepeatedInt32(msg, f, index)
                              : r->GetInt32(msg, f));
    case FieldDescriptor::CPPTYPE_INT64:
      return absl::StrCat(rep ? r->GetRepeatedInt64(msg, f, index)
                              : r->GetInt64(msg, f));
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat(rep ? r->GetRepeatedUInt32(msg, f, index)
                              : r->GetUInt32(msg, f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat(rep ? r->GetRepeatedUInt64(msg, f, index)
                              : r->GetUInt64(msg, f));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return ExactNumber(rep ? r->GetRepeatedDouble(msg, f, index)
                             : r->GetDouble(msg, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return ExactNumber(rep ? r->GetRepeatedFloat(msg, f, index)
                             : r->GetFloat(msg, f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(msg, f, index) : r->GetBool(msg, f))
                 ? "true"
                 : "false";
    case FieldDescriptor::CPPTYPE_ENUM:
      return EnumSpelling(rep ? r->GetRepeatedEnum(msg, f, index)
                              : r->GetEnum(msg, f));
    case FieldDescriptor::CPPTYPE_STRING:
      return Quoted(rep ? r->GetRepeatedString(msg, f, index)
                        : r->GetString(msg, f));
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return MessageYaml(rep ? r->GetRepeatedMessage(msg, f, index)
                             : r->GetMessage(msg, f));
  }
  return "";
}

// "{cpu_cores: 4, cpu_freq_khz: 1190400}": the set fields of `msg`.
std::string MessageYaml(const Message& msg) {
  std::vector<const FieldDescriptor*> fields;
  msg.GetReflection()->ListFields(msg, &fields);
  std::vector<std::string> kv;
  for (const FieldDescriptor* f : fields) {
    kv.push_back(absl::StrCat(f->name(), ": ", ValueYaml(msg, f, -1)));
  }
  return absl::StrCat("{", absl::StrJoin(kv, ", "), "}");
}

}  // namespace

std::string SweepYaml(const v1::SweepSpec& spec,
                      const std::vector<std::string>& comment) {
  std::string y;
  for (const std::string& line : comment) absl::StrAppend(&y, "# ", line, "\n");
  std::vector<const FieldDescriptor*> fields;
  spec.GetReflection()->ListFields(spec, &fields);
  for (const FieldDescriptor* f : fields) {
    if (!f->is_repeated()) {
      absl::StrAppend(&y, f->name(), ": ", ValueYaml(spec, f, -1), "\n");
      continue;
    }
    const int n = spec.GetReflection()->FieldSize(spec, f);
    if (f->number() == v1::SweepSpec::kPowerModeClassesFieldNumber) {
      continue;  // written in each power_modes entry
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      // One map per line, as people write power modes; an entry's classes
      // as its device_classes key.
      absl::StrAppend(&y, f->name(), ":\n");
      for (int i = 0; i < n; ++i) {
        std::string entry = ValueYaml(spec, f, i);
        if (i < spec.power_mode_classes_size() &&
            !spec.power_mode_classes(i).device_classes().empty()) {
          std::vector<std::string> names;
          for (const std::string& c :
               spec.power_mode_classes(i).device_classes()) {
            names.push_back(Quoted(c));
          }
          entry.pop_back();  // the closing brace
          absl::StrAppend(&entry, entry.size() > 1 ? ", " : "",
                          "device_classes: [", absl::StrJoin(names, ", "),
                          "]}");
        }
        absl::StrAppend(&y, "  - ", entry, "\n");
      }
      continue;
    }
    std::vector<std::string> items;
    for (int i = 0; i < n; ++i) items.push_back(ValueYaml(spec, f, i));
    absl::StrAppend(&y, f->name(), ": [", absl::StrJoin(items, ", "), "]\n");
  }
  return y;
}

absl::StatusOr<v1::SweepSpec> ParseSweepYaml(const std::string& text) {
  v1::SweepSpec spec;
  Reader reader;
  try {
    YAML::Node root = YAML::Load(text);
    if (root.IsNull()) {
      return absl::InvalidArgumentError(
          "the sweep file is empty (expected a map of sweep fields such as "
          "name, device_classes, models, datasets, batch_sizes, epochs)");
    }
    reader.ReadSpec(root, &spec);
    // Entries after the last one that names classes apply to every class.
    while (spec.power_mode_classes_size() > 0 &&
           spec.power_mode_classes_size() < spec.power_modes_size()) {
      spec.add_power_mode_classes();
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("YAML syntax error at line ", e.mark.line + 1, ", column ",
                     e.mark.column + 1, ": ", e.msg));
  }
  if (!reader.problems().empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(reader.problems(), "\n"));
  }
  return spec;
}

absl::StatusOr<v1::SweepSpec> LoadSweepFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a directory, not a sweep file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    const std::string why = absl::StrCat(
        path, ": cannot open the sweep file: ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(why);
    if (err == EACCES) return absl::PermissionDeniedError(why);
    return absl::InvalidArgumentError(why);
  }
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  if (in.bad()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": cannot read the sweep file: ", std::strerror(errno)));
  }
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(text);
  if (spec.ok()) return spec;
  // Name the file on every line, like a compiler does.
  std::vector<std::string> lines =
      absl::StrSplit(spec.status().message(), '\n');
  for (std::string& line : lines) line = absl::StrCat(path, ": ", line);
  return absl::Status(spec.status().code(), absl::StrJoin(lines, "\n"));
}

}  // namespace powersweep
