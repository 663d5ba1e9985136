#include "tests/workloads/test_files.h"

#include <stdlib.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace powersweep::testing {

TempDir::TempDir() {
  const char* base = getenv("TMPDIR");
  std::string templ = std::string(base != nullptr ? base : "/tmp") +
                      "/powersweep-workloads-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp");
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string IdxHeader(uint32_t magic, const std::vector<uint32_t>& dims) {
  std::string out;
  auto put = [&out](uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      out.push_back(static_cast<char>((v >> shift) & 0xff));
    }
  };
  put(magic);
  for (uint32_t d : dims) put(d);
  return out;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("write " + path);
}

void WriteGzFile(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("gzopen " + path);
  if (!bytes.empty() &&
      gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) <= 0) {
    throw std::runtime_error("gzwrite " + path);
  }
  gzclose(f);
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string ImagesPayload(uint32_t count, uint32_t rows, uint32_t cols) {
  std::string out;
  out.reserve(size_t{count} * rows * cols);
  for (uint32_t i = 0; i < count; ++i) {
    out.append(size_t{rows} * cols, static_cast<char>(i % 256));
  }
  return out;
}

std::string LabelsPayload(uint32_t count) {
  std::string out;
  for (uint32_t i = 0; i < count; ++i) out.push_back(static_cast<char>(i % 10));
  return out;
}

}  // namespace powersweep::testing
