#include "agent/run/catalog.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/synthetic_dataset.h"

namespace powersweep {

std::set<std::string> Catalog::DefaultModels() {
  std::set<std::string> models(kModelNames.begin(), kModelNames.end());
  models.insert(kKernelNames.begin(), kKernelNames.end());
  return models;
}

std::map<std::string, std::string> Catalog::DefaultDatasets() {
  return {{"fashion-mnist", "/usr/share/datasets/fashion-mnist"},
          {std::string(kSyntheticDataset), std::string(kSyntheticDataset)}};
}

absl::StatusOr<std::map<std::string, std::string>> ParseDatasetFlags(
    const std::vector<std::string>& values) {
  std::map<std::string, std::string> out;
  for (const std::string& value : values) {
    for (absl::string_view entry :
         absl::StrSplit(value, ',', absl::SkipWhitespace())) {
      entry = absl::StripAsciiWhitespace(entry);
      size_t eq = entry.find('=');
      if (eq == absl::string_view::npos || eq == 0 || eq + 1 == entry.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--dataset: expected NAME=PATH, got \"", entry, "\""));
      }
      if (IsSyntheticDataset(std::string_view(entry.data(), eq))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--dataset: \"", entry, "\": the name ",
            std::string(kSyntheticDataset),
            " is reserved for the in-memory synthetic data every agent "
            "offers; give the directory another name"));
      }
      // A relative path is the agent's working directory's: made absolute
      // here, since workloads and containers (their bind mounts) do not
      // run there.
      std::string path(entry.substr(eq + 1));
      if (!path.empty() && path[0] != '/') {
        std::error_code ec;
        const std::filesystem::path abs = std::filesystem::absolute(path, ec);
        if (ec) {
          return absl::InvalidArgumentError(absl::StrCat(
              "--dataset: \"", entry, "\": cannot make the path absolute: ",
              ec.message()));
        }
        path = abs.lexically_normal().string();
      }
      out[std::string(entry.substr(0, eq))] = path;
    }
  }
  return out;
}

absl::StatusOr<std::vector<int>> ParseCpuList(const std::string& text) {
  std::vector<int> cpus;
  auto bad = [&text]() {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpu list \"", text, "\": expected e.g. \"0-3\" or \"0,2\""));
  };
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) return bad();
    std::vector<absl::string_view> range = absl::StrSplit(part, '-');
    int lo = 0, hi = 0;
    if (range.size() == 1) {
      if (!absl::SimpleAtoi(range[0], &lo)) return bad();
      hi = lo;
    } else if (range.size() == 2) {
      if (!absl::SimpleAtoi(range[0], &lo) || !absl::SimpleAtoi(range[1], &hi))
        return bad();
    } else {
      return bad();
    }
    if (lo < 0 || hi < lo || hi > 4095) return bad();
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace powersweep
