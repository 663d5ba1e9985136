#include "common/fingerprint.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

// ------------------------------------------------------------- SHA-256

constexpr std::array<uint32_t, 64> kSha256K = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t Rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// Incremental SHA-256 (FIPS 180-4): Update() any number of times, then
// HexDigest() once.
class Sha256 {
 public:
  void Update(const unsigned char* data, size_t len) {
    total_bytes_ += len;
    while (len > 0) {
      size_t take = std::min(len, sizeof(block_) - block_len_);
      memcpy(block_ + block_len_, data, take);
      block_len_ += take;
      data += take;
      len -= take;
      if (block_len_ == sizeof(block_)) {
        Compress();
        block_len_ = 0;
      }
    }
  }

  std::string HexDigest() {
    uint64_t bits = total_bytes_ * 8;
    const unsigned char pad = 0x80;
    Update(&pad, 1);
    const unsigned char zero = 0;
    while (block_len_ != 56) Update(&zero, 1);
    unsigned char len_be[8];
    for (int i = 0; i < 8; ++i)
      len_be[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
    Update(len_be, 8);
    std::string raw(32, '\0');
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 4; ++j) {
        raw[4 * i + j] = static_cast<char>(h_[i] >> (24 - 8 * j));
      }
    }
    return absl::BytesToHexString(raw);
  }

 private:
  void Compress() {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      w[i] = (uint32_t{block_[4 * i]} << 24) |
             (uint32_t{block_[4 * i + 1]} << 16) |
             (uint32_t{block_[4 * i + 2]} << 8) | uint32_t{block_[4 * i + 3]};
    }
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = Rotr(w[i - 15], 7) ^ Rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = Rotr(w[i - 2], 17) ^ Rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3];
    uint32_t e = h_[4], f = h_[5], g = h_[6], h = h_[7];
    for (int i = 0; i < 64; ++i) {
      uint32_t s1 = Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25);
      uint32_t ch = (e & f) ^ (~e & g);
      uint32_t t1 = h + s1 + ch + kSha256K[i] + w[i];
      uint32_t s0 = Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22);
      uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
      uint32_t t2 = s0 + maj;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
    h_[5] += f;
    h_[6] += g;
    h_[7] += h;
  }

  uint32_t h_[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  unsigned char block_[64];
  size_t block_len_ = 0;
  uint64_t total_bytes_ = 0;
};

// ------------------------------------------------------------------ ELF

// Closes the descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() { close(fd); }
};

// Reads exactly `len` bytes at `offset`; false on a short read or error.
bool ReadAt(int fd, uint64_t offset, size_t len, void* out) {
  auto* p = static_cast<char*>(out);
  while (len > 0) {
    ssize_t n = pread(fd, p, len, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

// Scans one note area (a PT_NOTE segment or SHT_NOTE section) for the GNU
// build-id and returns its hex form.
std::optional<std::string> FindBuildIdInNotes(int fd, uint64_t offset,
                                              uint64_t size, uint64_t align) {
  constexpr uint64_t kMaxNotes = 1 << 20;  // note areas are small
  if (size == 0 || size > kMaxNotes) return std::nullopt;
  std::string notes(size, '\0');
  if (!ReadAt(fd, offset, size, notes.data())) return std::nullopt;
  const uint64_t a = align == 8 ? 8 : 4;
  auto round_up = [a](uint64_t v) { return (v + a - 1) / a * a; };
  uint64_t pos = 0;
  while (pos + sizeof(Elf64_Nhdr) <= size) {
    Elf64_Nhdr nh;
    memcpy(&nh, notes.data() + pos, sizeof(nh));
    uint64_t name_pos = pos + sizeof(nh);
    uint64_t desc_pos = name_pos + round_up(nh.n_namesz);
    uint64_t next = desc_pos + round_up(nh.n_descsz);
    if (desc_pos + nh.n_descsz > size) return std::nullopt;
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
        memcmp(notes.data() + name_pos, "GNU", 4) == 0 && nh.n_descsz > 0) {
      return absl::BytesToHexString(notes.substr(desc_pos, nh.n_descsz));
    }
    pos = next;
  }
  return std::nullopt;
}

// The build-id of an ELF64 file of this host's byte order, if it has one.
std::optional<std::string> ReadElfBuildId(int fd) {
  Elf64_Ehdr eh;
  if (!ReadAt(fd, 0, sizeof(eh), &eh)) return std::nullopt;
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64) {
    return std::nullopt;
  }
  const bool host_le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  if (eh.e_ident[EI_DATA] != (host_le ? ELFDATA2LSB : ELFDATA2MSB)) {
    return std::nullopt;
  }
  if (eh.e_phentsize == sizeof(Elf64_Phdr)) {
    for (uint16_t i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph;
      if (!ReadAt(fd, eh.e_phoff + uint64_t{i} * sizeof(ph), sizeof(ph), &ph)) {
        break;
      }
      if (ph.p_type != PT_NOTE) continue;
      auto id = FindBuildIdInNotes(fd, ph.p_offset, ph.p_filesz, ph.p_align);
      if (id) return id;
    }
  }
  if (eh.e_shentsize == sizeof(Elf64_Shdr)) {
    for (uint16_t i = 0; i < eh.e_shnum; ++i) {
      Elf64_Shdr sh;
      if (!ReadAt(fd, eh.e_shoff + uint64_t{i} * sizeof(sh), sizeof(sh), &sh)) {
        break;
      }
      if (sh.sh_type != SHT_NOTE) continue;
      auto id =
          FindBuildIdInNotes(fd, sh.sh_offset, sh.sh_size, sh.sh_addralign);
      if (id) return id;
    }
  }
  return std::nullopt;
}

absl::StatusOr<std::string> Sha256OfFd(int fd, const std::string& path) {
  Sha256 sha;
  unsigned char buf[1 << 16];
  uint64_t offset = 0;
  while (true) {
    ssize_t n = pread(fd, buf, sizeof(buf), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::DataLossError(
          absl::StrCat(path, ": read failed: ", strerror(errno)));
    }
    if (n == 0) break;
    sha.Update(buf, static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return sha.HexDigest();
}

}  // namespace

std::string Sha256Hex(absl::string_view bytes) {
  Sha256 sha;
  sha.Update(reinterpret_cast<const unsigned char*>(bytes.data()),
             bytes.size());
  return sha.HexDigest();
}

absl::StatusOr<std::string> BuildIdOfFile(const std::string& path) {
  if (path.empty())
    return absl::InvalidArgumentError("fingerprint: empty path");
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::string msg = absl::StrCat(path, ": cannot open: ", strerror(errno));
    if (errno == ENOENT) return absl::NotFoundError(msg);
    if (errno == EACCES) return absl::PermissionDeniedError(msg);
    return absl::DataLossError(msg);
  }
  FdCloser closer{fd};
  if (auto id = ReadElfBuildId(fd)) return absl::StrCat("build-id:", *id);
  PS_ASSIGN_OR_RETURN(std::string sha, Sha256OfFd(fd, path));
  return absl::StrCat("sha256:", sha);
}

std::string LoadedLibraryPath(absl::string_view substring) {
  struct Search {
    absl::string_view needle;
    std::string found;
  } search{substring, ""};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name == nullptr) return 0;
        absl::string_view name(info->dlpi_name);
        if (!name.empty() && name.find(s->needle) != absl::string_view::npos) {
          s->found = std::string(name);
          return 1;  // stop iterating
        }
        return 0;
      },
      &search);
  return search.found;
}

}  // namespace powersweep
