# CMake toolchain file: powersweep for aarch64 (NVIDIA Jetson) with Debian's
# cross toolchain (crossbuild-essential-arm64). Used by build-aarch64.sh.
#
# Two ways to find the arm64 libraries:
#   - multiarch (default): Debian's arm64 -dev packages installed beside the
#     amd64 ones (dpkg --add-architecture arm64; libgrpc++-dev:arm64, ...),
#     libraries in /usr/lib/aarch64-linux-gnu, headers in /usr/include.
#     Enough for the agent.
#   - a sysroot: -DPOWERSWEEP_SYSROOT=DIR, an arm64 Debian tree extracted with
#     mmdebstrap. Needed for the workload: libtorch-dev:arm64 cannot be
#     installed beside libtorch-dev:amd64 (apt would remove the native one).
#
# Programs run at build time (protoc, grpc_cpp_plugin) are always the host's
# amd64 ones from /usr/bin: the generated code is the same for any target,
# as long as protoc's version is the arm64 libprotobuf's (both 3.21.12 on
# Debian 12).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Try-compiles (and find_package in them) see the same settings.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES POWERSWEEP_SYSROOT)

if(POWERSWEEP_SYSROOT)
  set(CMAKE_SYSROOT ${POWERSWEEP_SYSROOT})
  set(CMAKE_FIND_ROOT_PATH ${POWERSWEEP_SYSROOT})
  # Libraries, headers and package files only from the sysroot.
  set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
  # pkg-config (libturbojpeg) reads the sysroot's .pc files.
  set(ENV{PKG_CONFIG_SYSROOT_DIR} ${POWERSWEEP_SYSROOT})
  set(ENV{PKG_CONFIG_LIBDIR}
    "${POWERSWEEP_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${POWERSWEEP_SYSROOT}/usr/share/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "")
  # Libraries that sysroot libraries need (libtorch's dependencies) are
  # found at link time through the sysroot's multiarch folders.
  set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,-rpath-link,${POWERSWEEP_SYSROOT}/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,${POWERSWEEP_SYSROOT}/lib/aarch64-linux-gnu")
else()
  # Multiarch: the arm64 packages live in the host's own tree; CMake's
  # library architecture (above) makes find_* look in
  # /usr/lib/aarch64-linux-gnu, and the package configs there (absl, gRPC)
  # come before the amd64 ones.
  set(CMAKE_PREFIX_PATH /usr/lib/aarch64-linux-gnu/cmake)
  set(PKG_CONFIG_EXECUTABLE aarch64-linux-gnu-pkg-config)
endif()

# Build tools are the host's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
