# packaging/cpack.cmake - the Debian package of a build: `cpack -G DEB` in a
# build folder configured with CMAKE_INSTALL_PREFIX=/usr (ci/release.sh does
# both). The package holds what `cmake --install` installs: the CLI, its man
# page, libgguflint.a and libgguflint.so, gguflint.h, gguflint.pc and the
# CMake package files. One package, not Debian's split into libgguflint0 and
# -dev: it is a release artefact, not an archive package.
set(CPACK_PACKAGE_NAME gguflint)
set(CPACK_PACKAGE_VENDOR gguflint)
set(CPACK_PACKAGE_CONTACT "gguflint maintainers <gguflint@users.noreply.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "fuzz-hardened validating parser and linter for GGUF model files")
set(CPACK_PACKAGE_DESCRIPTION
    "gguflint reads GGUF model files (the format of ggml and llama.cpp) without trusting
them and reports every problem with a stable rule id, a byte offset and a logical
path. This package carries the gguflint program, its manual page, and the
libgguflint library (static and shared) with its header, pkg-config file and
CMake package.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON) # the program and the shared library; archives keep their symbols
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # gguflint_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Dependencies of what is linked: computed by dpkg-shlibdeps (dpkg-dev) when
# it is there, else the two libraries the binaries link dynamically.
find_program(GGUFLINT_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(GGUFLINT_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libjansson4")
endif()
# Loaded at run time with dlopen, only when used: libcurl for URL inputs
# (src/net/curl_dl.c), libcrypto for `gguflint hash` (src/cli/sha256.c).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcurl4, libssl3")
include(CPack)
