#pragma once
// The JSON catalogs of data/, embedded at build time (see data/CMakeLists.txt).
#include <string_view>

namespace vramfit::builtin {
std::string_view models_json() noexcept;
std::string_view gpus_json() noexcept;
}  // namespace vramfit::builtin
