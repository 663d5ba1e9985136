#include "controller/sweep/sweep_file.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/sweep/yaml_fields.h"
#include "yaml-cpp/yaml.h"

namespace powersweep {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

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

std::vector<std::string> KnownKeys(const Descriptor* d) {
  return absl::StrSplit(FieldNames(d), ", ");
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
  void ReadPowerMode(const YAML::Node& node, const std::string& where,
                     v1::PowerMode* mode);

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
                                     FieldNames(d), ") at line ", LineOf(root),
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
    const YAML::Node& value = kv.second;
    if (value.IsNull()) continue;  // `key:` with nothing = unset
    if (!f->is_repeated()) {
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
    // The only message-typed axis is power_modes.
    ReadPowerMode(node, where, spec->add_power_modes());
  } else {
    ReadScalarInto(node, f, spec, where, &problems_);
  }
}

void Reader::ReadPowerMode(const YAML::Node& node, const std::string& where,
                           v1::PowerMode* mode) {
  const Descriptor* d = v1::PowerMode::descriptor();
  std::vector<std::string> known = KnownKeys(d);
  for (const MhzKey& m : kMhzKeys) known.push_back(m.key);
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
  for (const MhzKey& m : kMhzKeys) {
    if (seen.count(m.key) > 0 && seen.count(m.field) > 0) {
      problems_.push_back(absl::StrCat(where, " at line ", LineOf(node),
                                       ": give ", m.field, " or ", m.key,
                                       ", not both"));
    }
  }
}

}  // namespace

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
