# cmake --install BUILD --prefix P installs: the public headers (HRW_PUBLIC_HEADERS below, into
# P/include/hrw), the layer
# libraries (P/lib), the hrw CLI (P/bin, when built), P/lib/cmake/hrw/hrwConfig.cmake
# (+ version file, + Findxxhash.cmake) exporting hrw::hrw, and P/lib/pkgconfig/hrw.pc. Every
# path in the package is relative to P, so the prefix can be moved (tools/test-install.sh). The libraries are static by default, so
# the package also names what they link (Highway, oneTBB, fmt, xxHash) for its consumers.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Debian's multiarch libdir (lib/x86_64-linux-gnu) would hide the package from the plain
# P/lib/cmake search path the README gives; the layout is P/lib on every architecture.
set(HRW_INSTALL_LIBDIR lib)
set(HRW_CMAKE_DIR ${HRW_INSTALL_LIBDIR}/cmake/hrw)

install(TARGETS hrw hrw_jobs hrw_io hrw_core hrw_kernels EXPORT hrwTargets
        ARCHIVE DESTINATION ${HRW_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${HRW_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET hrw_cli)
  install(TARGETS hrw_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The public API, listed on purpose (fmt's FMT_HEADERS): what docs/api.md describes. A header
# of include/hrw/ that is not listed here is wiring between the layers and is not installed;
# every listed header compiles on its own against the installed tree (tools/test-install.sh).
set(HRW_PUBLIC_HEADERS
  bulk.hpp
  checked_sum.hpp
  cluster_view.hpp
  compare.hpp
  csv.hpp
  det_math.hpp
  errors.hpp
  hash.hpp
  hierarchy.hpp
  key_batch.hpp
  key_source.hpp
  output.hpp
  place.hpp
  placement.hpp
  placement_reader.hpp
  plan.hpp
  plan_parts.hpp
  progress.hpp
  raw_buffer.hpp
  reference.hpp
  select.hpp
  targets.hpp
  verify.hpp
  view_json.hpp)
list(TRANSFORM HRW_PUBLIC_HEADERS PREPEND ${PROJECT_SOURCE_DIR}/include/hrw/)
install(FILES ${HRW_PUBLIC_HEADERS} ${PROJECT_BINARY_DIR}/include/hrw/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hrw)

install(EXPORT hrwTargets NAMESPACE hrw:: DESTINATION ${HRW_CMAKE_DIR})
configure_package_config_file(cmake/hrwConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hrwConfig.cmake INSTALL_DESTINATION ${HRW_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hrwConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hrwConfig.cmake ${PROJECT_BINARY_DIR}/hrwConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/Findxxhash.cmake
        DESTINATION ${HRW_CMAKE_DIR})

configure_file(cmake/hrw.pc.in ${PROJECT_BINARY_DIR}/hrw.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/hrw.pc DESTINATION ${HRW_INSTALL_LIBDIR}/pkgconfig)
