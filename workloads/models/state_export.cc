#include "workloads/models/state_export.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {
namespace {

bool LittleEndianHost() {
  const uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

absl::StatusOr<std::string> NpyDtype(const torch::Tensor& t) {
  if (t.scalar_type() == torch::kFloat32) return std::string("f4");
  if (t.scalar_type() == torch::kInt64) return std::string("i8");
  return absl::InvalidArgumentError(
      absl::StrCat("npy export: dtype ", c10::toString(t.scalar_type()),
                   " is not supported (float32 and int64 are)"));
}

// "(2, 3)", "(5,)", "()" as numpy writes shape tuples.
std::string ShapeTuple(const torch::Tensor& t) {
  std::string dims = absl::StrJoin(t.sizes(), ", ");
  if (t.dim() == 1) dims += ",";
  return absl::StrCat("(", dims, ")");
}

}  // namespace

absl::Status WriteNpy(const torch::Tensor& tensor, const std::string& path) {
  absl::StatusOr<std::string> dtype = NpyDtype(tensor);
  if (!dtype.ok()) return dtype.status();
  if (!LittleEndianHost()) {
    return absl::UnimplementedError("npy export: big-endian hosts");
  }
  const torch::Tensor t = tensor.detach().to(torch::kCPU).contiguous();
  std::string header =
      absl::StrCat("{'descr': '<", *dtype, "', 'fortran_order': False, ",
                   "'shape': ", ShapeTuple(t), ", }");
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char prefix[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const char len_le[2] = {static_cast<char>(len & 0xff),
                          static_cast<char>(len >> 8)};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(prefix, sizeof(prefix));
  out.write(len_le, sizeof(len_le));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(t.data_ptr()),
            static_cast<std::streamsize>(t.numel() * t.element_size()));
  out.close();
  if (!out) {
    return absl::InternalError(
        absl::StrCat(path, ": cannot write (", std::strerror(errno), ")"));
  }
  return absl::OkStatus();
}

absl::Status ExportModuleState(const torch::nn::Module& module,
                               const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat(dir, ": cannot create (", ec.message(), ")"));
  }
  std::string index;
  auto add = [&](const char* kind, const std::string& key,
                 const torch::Tensor& t) -> absl::Status {
    absl::Status st = WriteNpy(t, absl::StrCat(dir, "/", key, ".npy"));
    if (!st.ok()) return st;
    absl::StrAppend(&index, kind, " ", key, " ", *NpyDtype(t), " ",
                    t.dim() == 0 ? "-" : absl::StrJoin(t.sizes(), ","), "\n");
    return absl::OkStatus();
  };
  for (const auto& p : module.named_parameters()) {
    absl::Status st = add("param", p.key(), p.value());
    if (!st.ok()) return st;
  }
  for (const auto& b : module.named_buffers()) {
    absl::Status st = add("buffer", b.key(), b.value());
    if (!st.ok()) return st;
  }
  const std::string index_path = absl::StrCat(dir, "/state.txt");
  std::ofstream out(index_path, std::ios::trunc);
  out << index;
  out.close();
  if (!out) {
    return absl::InternalError(absl::StrCat(index_path, ": cannot write"));
  }
  return absl::OkStatus();
}

}  // namespace powersweep
