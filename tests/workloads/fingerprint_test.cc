#include "common/fingerprint.h"

#include <elf.h>
#include <string.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/test_files.h"
#include "zlib.h"

namespace powersweep {
namespace {

using ::powersweep::testing::TempDir;
using ::powersweep::testing::WriteFile;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

template <typename T>
void Put(std::string& out, size_t offset, const T& value) {
  if (out.size() < offset + sizeof(T)) out.resize(offset + sizeof(T), '\0');
  memcpy(out.data() + offset, &value, sizeof(T));
}

// A GNU build-id note holding `id`, optionally preceded by another note.
std::string BuildIdNote(const std::string& id, bool other_note_first) {
  std::string notes;
  auto add = [&notes](const char* name, uint32_t type,
                      const std::string& desc) {
    Elf64_Nhdr nh{static_cast<Elf64_Word>(strlen(name) + 1),
                  static_cast<Elf64_Word>(desc.size()), type};
    std::string n(reinterpret_cast<const char*>(&nh), sizeof(nh));
    n += std::string(name, strlen(name) + 1);
    n.resize((n.size() + 3) / 4 * 4, '\0');
    n += desc;
    n.resize((n.size() + 3) / 4 * 4, '\0');
    notes += n;
  };
  if (other_note_first) add("GNU", NT_GNU_ABI_TAG, std::string(16, '\1'));
  add("GNU", NT_GNU_BUILD_ID, id);
  return notes;
}

// A minimal ELF64 file whose notes are found through a PT_NOTE program
// header (use_segment) or an SHT_NOTE section header.
std::string MinimalElf(const std::string& notes, bool use_segment) {
  std::string out;
  Elf64_Ehdr eh{};
  memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_X86_64;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  const size_t table = sizeof(Elf64_Ehdr);
  const size_t notes_at = 256;
  if (use_segment) {
    eh.e_phoff = table;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 1;
    Elf64_Phdr ph{};
    ph.p_type = PT_NOTE;
    ph.p_offset = notes_at;
    ph.p_filesz = notes.size();
    ph.p_align = 4;
    Put(out, table, ph);
  } else {
    eh.e_shoff = table;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 2;  // the null section, then the note
    Elf64_Shdr sh{};
    Put(out, table, sh);
    sh.sh_type = SHT_NOTE;
    sh.sh_offset = notes_at;
    sh.sh_size = notes.size();
    sh.sh_addralign = 4;
    Put(out, table + sizeof(Elf64_Shdr), sh);
  }
  Put(out, 0, eh);
  out.resize(notes_at, '\0');
  return out + notes;
}

TEST(FingerprintTest, OwnBinaryHasAStableGnuBuildId) {
  absl::StatusOr<std::string> a = BuildIdOfFile("/proc/self/exe");
  absl::StatusOr<std::string> b = BuildIdOfFile("/proc/self/exe");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(*a, MatchesRegex("build-id:[0-9a-f]{40}"));
  EXPECT_EQ(*a, *b);
}

// (The workload binary's libtorch_cpu fingerprint is checked end to end in
// workload_binary_test.cc; this test binary does not load LibTorch.)
TEST(FingerprintTest, LoadedSharedLibraryIsFoundAndHasABuildId) {
  ASSERT_NE(zlibVersion(), nullptr);  // keeps libz linked and loaded
  std::string path = LoadedLibraryPath("libz.so");
  ASSERT_THAT(path, HasSubstr("libz.so"));
  absl::StatusOr<std::string> fp = BuildIdOfFile(path);
  ASSERT_TRUE(fp.ok()) << fp.status();
  EXPECT_THAT(*fp, MatchesRegex("build-id:[0-9a-f]+"));
  EXPECT_NE(*fp, *BuildIdOfFile("/proc/self/exe"));
  EXPECT_EQ(LoadedLibraryPath("no-such-library-xyz"), "");
}

TEST(FingerprintTest, ReadsBuildIdFromNoteSegment) {
  TempDir dir;
  std::string path = dir.File("seg.elf");
  WriteFile(path, MinimalElf(BuildIdNote("\x01\x23\x45\x67\x89\xab\xcd\xef",
                                         /*other_note_first=*/true),
                             /*use_segment=*/true));
  absl::StatusOr<std::string> fp = BuildIdOfFile(path);
  ASSERT_TRUE(fp.ok()) << fp.status();
  EXPECT_EQ(*fp, "build-id:0123456789abcdef");
}

TEST(FingerprintTest, ReadsBuildIdFromNoteSectionWhenNoSegment) {
  TempDir dir;
  std::string path = dir.File("sec.elf");
  WriteFile(path, MinimalElf(BuildIdNote("\xfe\xdc\xba", false), false));
  absl::StatusOr<std::string> fp = BuildIdOfFile(path);
  ASSERT_TRUE(fp.ok()) << fp.status();
  EXPECT_EQ(*fp, "build-id:fedcba");
}

TEST(FingerprintTest, ElfWithoutBuildIdFallsBackToSha256OfTheFile) {
  TempDir dir;
  std::string path = dir.File("noid.elf");
  std::string elf = MinimalElf("", /*use_segment=*/true);
  WriteFile(path, elf);
  absl::StatusOr<std::string> fp = BuildIdOfFile(path);
  ASSERT_TRUE(fp.ok()) << fp.status();
  EXPECT_EQ(*fp, "sha256:" + Sha256Hex(elf));
}

TEST(FingerprintTest, NonElfFileIsHashedWithSha256) {
  TempDir dir;
  std::string path = dir.File("abc.txt");
  WriteFile(path, "abc");
  absl::StatusOr<std::string> fp = BuildIdOfFile(path);
  ASSERT_TRUE(fp.ok()) << fp.status();
  // FIPS 180-2 example "abc".
  EXPECT_EQ(*fp,
            "sha256:"
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(FingerprintTest, Sha256MatchesPublishedTestVectors) {
  EXPECT_EQ(Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(
      Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(FingerprintTest, MissingFileIsNotFoundNamingIt) {
  absl::StatusOr<std::string> fp = BuildIdOfFile("/nonexistent/powersweep-bin");
  ASSERT_FALSE(fp.ok());
  EXPECT_EQ(fp.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(fp.status().message(), HasSubstr("/nonexistent/powersweep-bin"));
}

}  // namespace
}  // namespace powersweep
