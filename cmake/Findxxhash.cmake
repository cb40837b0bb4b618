# Findxxhash: xxHash (Debian's libxxhash-dev ships no CMake package) as the imported target
# xxhash::xxhash. Used by the build and, installed next to hrwConfig.cmake, by consumers of
# the installed package: no absolute path is written into the package (docs/api.md).
find_path(xxhash_INCLUDE_DIR xxhash.h)
find_library(xxhash_LIBRARY NAMES xxhash)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(xxhash REQUIRED_VARS xxhash_LIBRARY xxhash_INCLUDE_DIR)
if(xxhash_FOUND AND NOT TARGET xxhash::xxhash)
  add_library(xxhash::xxhash UNKNOWN IMPORTED)
  set_target_properties(xxhash::xxhash PROPERTIES
    IMPORTED_LOCATION "${xxhash_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${xxhash_INCLUDE_DIR}")
endif()
mark_as_advanced(xxhash_INCLUDE_DIR xxhash_LIBRARY)
