# cmake --install BUILD --prefix P installs: the public headers (P/include/hrw), the layer
# libraries (P/lib), the hrw CLI (P/bin), P/lib/cmake/hrw/hrwConfig.cmake (+ version file)
# exporting hrw::hrw, and P/lib/pkgconfig/hrw.pc. The libraries are static by default, so
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
install(TARGETS hrw_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/hrw DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/hrw/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hrw)

install(EXPORT hrwTargets NAMESPACE hrw:: DESTINATION ${HRW_CMAKE_DIR})
configure_package_config_file(cmake/hrwConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hrwConfig.cmake INSTALL_DESTINATION ${HRW_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hrwConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hrwConfig.cmake ${PROJECT_BINARY_DIR}/hrwConfigVersion.cmake
        DESTINATION ${HRW_CMAKE_DIR})

configure_file(cmake/hrw.pc.in ${PROJECT_BINARY_DIR}/hrw.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/hrw.pc DESTINATION ${HRW_INSTALL_LIBDIR}/pkgconfig)
