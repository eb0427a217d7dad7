# nlohmann/json and doctest as targets for both the native and the Emscripten build.
#
# Under emcmake, find_package either finds nothing (the sysroot is the search root) or, with
# NO_CMAKE_FIND_ROOT_PATH, a target that adds -isystem /usr/include and drags glibc headers into the
# wasm compile. So for Emscripten we copy only the header folders into the build tree and wrap them
# in INTERFACE targets (see ../shared/TOOLCHAIN.md, points 2 and 7).
if(EMSCRIPTEN)
  set(_vendored "${CMAKE_BINARY_DIR}/vendored-include")
  file(COPY /usr/include/nlohmann DESTINATION "${_vendored}")
  file(COPY /usr/include/doctest DESTINATION "${_vendored}")
  add_library(vramfit_nlohmann INTERFACE)
  target_include_directories(vramfit_nlohmann SYSTEM INTERFACE "${_vendored}")
  add_library(nlohmann_json::nlohmann_json ALIAS vramfit_nlohmann)
  add_library(vramfit_doctest INTERFACE)
  target_include_directories(vramfit_doctest SYSTEM INTERFACE "${_vendored}")
  add_library(doctest::doctest ALIAS vramfit_doctest)
else()
  find_package(nlohmann_json 3.10 REQUIRED)
  if(VRAMFIT_BUILD_TESTS)
    find_package(doctest REQUIRED)
  endif()
endif()
