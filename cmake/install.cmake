# SPDX-License-Identifier: MIT
# cmake/install.cmake: what `cmake --install` puts where, the package
# files other builds find foretell with (find_package(foretell) and
# pkg-config), and the Debian package (`cpack -G DEB`; docs/user-guide.md, "Installing foretell").
# The commands and wrappers install their own rules (cli/, scripts/), the
# docs, man pages and completion theirs (docs/); this file adds the
# runtime, the annotation header and the package metadata.
include(CMakePackageConfigHelpers)

set(FT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/foretell)

# The runtime archive foretell-cc links into programs under test; the
# wrappers find it at this libdir relative to their own bindir.
set_target_properties(foretell_rt PROPERTIES EXPORT_NAME rt)
install(TARGETS foretell_rt EXPORT foretellTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The LD_PRELOAD runtime for programs not built with foretell-cc; the
# commands find it beside them (bin/../lib) or at this libdir.
install(TARGETS foretell_preload LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The annotation header (foretell_atomic_begin/end); compiles to nothing
# outside a foretell build, so it can stay in production code.
install(FILES ${PROJECT_SOURCE_DIR}/recorder/foretell.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# find_package(foretell): foretell::foretell (the command), foretell::rt
# (the runtime archive), foretell::annotations (the header), and
# FORETELL_CC / FORETELL_CXX, the wrappers to build programs with.
install(EXPORT foretellTargets NAMESPACE foretell::
        DESTINATION ${FT_CMAKE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/foretellConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/foretellConfig.cmake
  INSTALL_DESTINATION ${FT_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/foretellConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/foretellConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/foretellConfigVersion.cmake
        DESTINATION ${FT_CMAKE_DIR})

# pkg-config: --cflags for foretell.h, and the wrappers and runtime as
# variables (`pkg-config --variable=cc foretell`).  No Libs: the runtime
# is linked by the wrapper, with the --wrap list it needs.
# Relative to the .pc file's own directory, so a staged or moved tree works.
file(RELATIVE_PATH FT_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/foretell.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/foretell.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/foretell.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The Debian package: `cpack -G DEB` in the build directory writes
# foretell_VERSION_ARCH.deb.  Library dependencies come from
# dpkg-shlibdeps; the wrappers need a C compiler, the C library's headers
# and libzstd-dev at use, not at install.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME foretell)
set(CPACK_PACKAGE_VENDOR "foretell developers")
set(CPACK_PACKAGE_CONTACT "foretell developers <foretell@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "predicts and replays concurrency bugs of pthreads programs")
set(CPACK_PACKAGE_INSTALL_DIRECTORY foretell)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libzstd-dev: the wrappers link programs with -lzstd (the runtime
# compresses the trace), which needs the libzstd.so link.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gcc | clang, libc6-dev, libzstd-dev")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++, bash-completion, valgrind")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"foretell records one run of a pthreads program built with its compiler
wrapper (foretell-cc, foretell-c++), predicts offline which other
interleavings of that run break atomicity, and replays each prediction to
prove the bug. It also explores schedules (PCT, RPro, Period, ICB, DPOR).")
set(CPACK_STRIP_FILES OFF)
include(CPack)
