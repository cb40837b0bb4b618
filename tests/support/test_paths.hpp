// Where the suite finds the CLI, its emulator and the source tree: defined in one generated
// file (test_paths.cpp in the build tree), so that no other test file's compile command
// names a path of this checkout and a compiler cache serves every clone alike.
#pragma once

namespace hrw::test {

extern const char* const kCliPath;      // the hrw binary under test
extern const char* const kCliEmulator;  // the cross-compiling emulator's words, or ""
extern const char* const kSourceDir;    // the source tree (docs/, tests/data/)

}  // namespace hrw::test
