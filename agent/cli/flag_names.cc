#include "agent/cli/flag_names.h"

namespace powersweep {

std::vector<std::string> UnderscoreFlagNames(int argc, char** argv) {
  std::vector<std::string> out(argv, argv + argc);
  for (size_t i = 1; i < out.size(); ++i) {
    std::string& a = out[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-') continue;
    const size_t start = a[1] == '-' ? 2 : 1;
    const size_t end = a.find('=');
    for (size_t j = start; j < a.size() && j < end; ++j) {
      if (a[j] == '-') a[j] = '_';
    }
  }
  return out;
}

std::vector<std::string> MergeRepeatedFlag(const std::vector<std::string>& args,
                                           const std::string& name) {
  const std::string bare = "--" + name;
  const std::string with_eq = bare + "=";
  std::vector<std::string> out;
  std::string merged;
  int first = -1;
  bool rest = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") rest = true;
    std::string value;
    bool hit = false;
    if (!rest && i > 0 && a.rfind(with_eq, 0) == 0) {
      value = a.substr(with_eq.size());
      hit = true;
    } else if (!rest && i > 0 && a == bare && i + 1 < args.size()) {
      value = args[++i];
      hit = true;
    }
    if (!hit) {
      out.push_back(a);
      continue;
    }
    if (first < 0) {
      first = static_cast<int>(out.size());
      out.emplace_back();
    }
    if (!merged.empty() && !value.empty()) merged += ",";
    merged += value;
  }
  if (first >= 0) out[first] = with_eq + merged;
  return out;
}

}  // namespace powersweep
