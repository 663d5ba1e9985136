// MakeTestDir: a new directory under testing::TempDir() for one test. ctest
// runs each test as its own process, in parallel, so a fixed name there is
// shared by tests running at the same time (two runs with the same id then
// append to the same workload log). Removed with its contents when the test
// process exits normally.
#ifndef POWERSWEEP_TESTS_COMMON_TEST_DIR_H_
#define POWERSWEEP_TESTS_COMMON_TEST_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "gtest/gtest.h"

namespace powersweep {

inline std::string MakeTestDir(const std::string& name) {
  struct Cleanup {
    std::vector<std::string> dirs;
    ~Cleanup() {
      std::error_code ec;
      for (const std::string& d : dirs) std::filesystem::remove_all(d, ec);
    }
  };
  static Cleanup cleanup;
  std::string tmpl = ::testing::TempDir() + "/" + name + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << tmpl << " failed";
    return tmpl;
  }
  cleanup.dirs.push_back(tmpl);
  return tmpl;
}

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_COMMON_TEST_DIR_H_
