// Shell(command): runs a fixed command line (no user input) with /bin/sh,
// stderr joined to stdout; returns pclose's status and the output. For
// integration tests that start the Docker engine or build images.
#ifndef POWERSWEEP_TESTS_INTEGRATION_SHELL_H_
#define POWERSWEEP_TESTS_INTEGRATION_SHELL_H_

#include <array>
#include <cstdio>
#include <string>
#include <utility>

namespace powersweep::testing {

inline std::pair<int, std::string> Shell(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  return {pclose(p), out};
}

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_INTEGRATION_SHELL_H_
