#include "workloads/cli/flag_args.h"

#include <algorithm>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"

namespace powersweep {
namespace {

std::string Dashed(absl::string_view name) {
  return absl::StrReplaceAll(name, {{"_", "-"}});
}

}  // namespace

std::vector<std::string> NormalizeFlagArgs(int argc, char** argv) {
  std::vector<std::string> out;
  bool flags_done = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (i > 0 && !flags_done && arg == "--") flags_done = true;
    if (i > 0 && !flags_done && absl::StartsWith(arg, "--") && arg.size() > 2) {
      size_t end = std::min(arg.find('='), arg.size());
      std::replace(arg.begin() + 2, arg.begin() + end, '-', '_');
    }
    out.push_back(std::move(arg));
  }
  return out;
}

bool IsHelpRequest(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] == "--help" || args[i] == "-h" || args[i] == "help")
      return true;
  }
  return false;
}

absl::Status CheckFlagArgs(const std::vector<std::string>& args,
                           std::vector<std::string>* positional) {
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      positional->insert(positional->end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      positional->push_back(arg);
      continue;
    }
    absl::string_view body =
        absl::StripPrefix(absl::StripPrefix(arg, "-"), "-");
    size_t eq = body.find('=');
    absl::string_view name = body.substr(0, eq);
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    bool negated = false;
    if (flag == nullptr && absl::StartsWith(name, "no")) {
      flag = absl::FindCommandLineFlag(name.substr(2));
      negated = flag != nullptr && flag->IsOfType<bool>();
    }
    if (flag == nullptr || (negated && eq != absl::string_view::npos)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", Dashed(name), ": unknown flag (see --help)"));
    }
    if (negated) continue;
    std::string value;
    if (eq != absl::string_view::npos) {
      value = std::string(body.substr(eq + 1));
    } else if (flag->IsOfType<bool>()) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--", Dashed(name), ": missing value"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", Dashed(name), ": '", value,
                       "' is not a valid value (", error, ")"));
    }
  }
  return absl::OkStatus();
}

std::string FlagsHelp(absl::string_view file_suffix) {
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::EndsWith(flag->Filename(), file_suffix)) flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  std::string out = "Flags:\n";
  for (const absl::CommandLineFlag* f : flags) {
    absl::StrAppend(&out, "  --", Dashed(f->Name()), " (default: ",
                    f->DefaultValue().empty() ? "\"\"" : f->DefaultValue(),
                    ")\n      ", f->Help(), "\n");
  }
  return out;
}

}  // namespace powersweep
