# Cross toolchain: Debian 12 x86-64 host -> aarch64 (arm64) Linux, tests run under qemu-user.
#
# Used by tools/arm-ci.sh; usable by hand:
#   cmake -S . -B build-arm64 -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-toolchain.cmake \
#     -DHRW_ARM64_PREFIX=/var/cache/hrw-arm64/sysroot [-DHRW_QEMU_CPU=neoverse-n1]
#
# HRW_ARM64_PREFIX is a staging tree holding the arm64 -dev packages unpacked with
# `dpkg -x` (usr/include, usr/lib/aarch64-linux-gnu, usr/lib/cmake, usr/share/cmake). It has
# no libc: glibc and libstdc++ come from the cross compiler's /usr/aarch64-linux-gnu, which
# is why this file uses CMAKE_FIND_ROOT_PATH and not CMAKE_SYSROOT.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# The toolchain file is re-read by every try_compile: take the settings from the cache or
# the environment, and hand them on to try_compile projects.
if(NOT HRW_ARM64_PREFIX AND DEFINED ENV{HRW_ARM64_PREFIX})
  set(HRW_ARM64_PREFIX "$ENV{HRW_ARM64_PREFIX}")
endif()
if(NOT HRW_ARM64_PREFIX)
  message(FATAL_ERROR "aarch64-toolchain.cmake: set HRW_ARM64_PREFIX to the arm64 staging "
                      "prefix (tools/arm-ci.sh makes one)")
endif()
if(HRW_ARM64_PREFIX MATCHES " ")
  # tests/CMakeLists.txt passes the emulator command to the CLI tests as one string split
  # on spaces.
  message(FATAL_ERROR "HRW_ARM64_PREFIX must not contain spaces: ${HRW_ARM64_PREFIX}")
endif()
set(HRW_ARM64_PREFIX "${HRW_ARM64_PREFIX}" CACHE PATH "arm64 staging prefix (dpkg -x tree)")
if(NOT HRW_QEMU_CPU)
  set(HRW_QEMU_CPU neoverse-n1)
endif()
set(HRW_QEMU_CPU "${HRW_QEMU_CPU}" CACHE STRING
    "qemu -cpu for ctest (neoverse-n1: NEON only; max: SVE2/SVE/NEON)")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES HRW_ARM64_PREFIX HRW_QEMU_CPU)

set(CMAKE_FIND_ROOT_PATH "${HRW_ARM64_PREFIX}" /usr/aarch64-linux-gnu)
# Programs (qemu, ninja, ...) come from the host; everything else only from the roots.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Shared libraries in the staging tree may need each other at link time.
set(_hrw_arm64_libdir "${HRW_ARM64_PREFIX}/usr/lib/aarch64-linux-gnu")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_hrw_arm64_libdir}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_hrw_arm64_libdir}")

# ctest, catch_discover_tests and the CLI tests (HRW_CLI_EMULATOR) run aarch64 binaries
# through this. -L gives the dynamic loader, glibc and libstdc++; LD_LIBRARY_PATH the
# staged libhwy, libtbb, libfmt, libxxhash.
find_program(HRW_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR
    "${HRW_QEMU_AARCH64}" -cpu "${HRW_QEMU_CPU}" -L /usr/aarch64-linux-gnu
    -E "LD_LIBRARY_PATH=${_hrw_arm64_libdir}")
