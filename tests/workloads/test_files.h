// Helpers for workload tests: a fresh temporary directory per test and
// writers for IDX files (plain or gzipped) with chosen headers and content.
// Not thread-safe; each test owns its TempDir.
#ifndef POWERSWEEP_TESTS_WORKLOADS_TEST_FILES_H_
#define POWERSWEEP_TESTS_WORKLOADS_TEST_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace powersweep::testing {

// Creates a unique directory under $TMPDIR (or /tmp); removes it and its
// files when destroyed.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Big-endian IDX header: magic then each dimension.
std::string IdxHeader(uint32_t magic, const std::vector<uint32_t>& dims);

void WriteFile(const std::string& path, const std::string& bytes);
void WriteGzFile(const std::string& path, const std::string& bytes);
std::string ReadFile(const std::string& path);

// A consistent image + label pair of `count` images of rows x cols, where
// image i has every pixel equal to i % 256 and label i % 10.
std::string ImagesPayload(uint32_t count, uint32_t rows, uint32_t cols);
std::string LabelsPayload(uint32_t count);

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_WORKLOADS_TEST_FILES_H_
