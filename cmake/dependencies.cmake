# nlohmann/json and doctest as targets for both the native and the Emscripten build.
#
# Under emcmake, find_package either finds nothing (the sysroot is the search root) or, with
# NO_CMAKE_FIND_ROOT_PATH, a target that adds -isystem /usr/include and drags glibc headers into the
# wasm compile. So for Emscripten we copy only the header folders into the build tree and wrap them
# in INTERFACE targets.
if(EMSCRIPTEN)
  set(_vendored "${CMAKE_BINARY_DIR}/vendored-include")
  file(COPY /usr/include/nlohmann DESTINATION "${_vendored}")
  file(COPY /usr/include/doctest DESTINATION "${_vendored}")
  # nlohmann's lexer formats a control character in a parse error with snprintf("<U+%.4X>"), the only printf
  # left in the wasm: it pulled in musl's printf_core (-4 KB gzip). The copy spells the same text by hand (the
  # character is at most 0x1F, so "<U+00" and two hex digits).
  set(_lexer "${_vendored}/nlohmann/detail/input/lexer.hpp")
  file(READ "${_lexer}" _text)
  set(_printf [[static_cast<void>((std::snprintf)(cs.data(), cs.size(), "<U+%.4X>", static_cast<unsigned char>(c)));]])
  set(_by_hand [[{ const auto u = static_cast<unsigned char>(c); cs = {{'<', 'U', '+', '0', '0', "0123456789ABCDEF"[u >> 4], "0123456789ABCDEF"[u & 15], '>', '\0'}}; }]])
  string(FIND "${_text}" "${_printf}" _at)
  string(FIND "${_text}" "${_by_hand}" _done)
  if(NOT _at EQUAL -1)
    string(REPLACE "${_printf}" "${_by_hand}" _text "${_text}")
    file(WRITE "${_lexer}" "${_text}")
  elseif(_done EQUAL -1)
    message(FATAL_ERROR "nlohmann/json's lexer changed: update the patch in cmake/dependencies.cmake")
  endif()
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
