# `cmake --install`: the two C API libraries, their headers, the CLI, a CMake
# package (find_package(mxforge): mxforge::mxforge, mxforge::runtime) and
# pkg-config files (mxforge, mxforge_runtime). docs/runtime.md, "Install".
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The installed libmxforge.so and CLI find Debian's LLVM/MLIR 22 where they
# were linked from (/usr/lib/llvm-22/lib is not on the loader's path).
# Libraries go to lib/ (not a multiarch libdir) so the .pc files can name the
# prefix relative to themselves.
set_target_properties(mxforge_capi mxforge PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
set_target_properties(mxforge_capi PROPERTIES EXPORT_NAME mxforge)
set_target_properties(mxforge_capi_runtime PROPERTIES EXPORT_NAME runtime)

install(TARGETS mxforge_capi mxforge_capi_runtime EXPORT mxforgeTargets
        LIBRARY DESTINATION lib
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mxforge RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES include/mxforge/mxforge.h include/mxforge/mxforge.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mxforge)
install(EXPORT mxforgeTargets NAMESPACE mxforge::
        DESTINATION lib/cmake/mxforge)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mxforgeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mxforgeConfig.cmake
  INSTALL_DESTINATION lib/cmake/mxforge)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mxforgeConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mxforgeConfig.cmake
              ${PROJECT_BINARY_DIR}/mxforgeConfigVersion.cmake
        DESTINATION lib/cmake/mxforge)
foreach(pc mxforge mxforge_runtime)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION lib/pkgconfig)
endforeach()
