#pragma once
// The JSON catalogs of data/, embedded at build time (see data/CMakeLists.txt).
#include <span>         // std::span
#include <string_view>  // std::string_view

namespace vramfit::builtin {
std::string_view models_json() noexcept;
std::string_view gpus_json() noexcept;
// Each preset's config.json text, which models_json() names by its index ("config": 3).
std::span<const std::string_view> model_configs() noexcept;
}  // namespace vramfit::builtin
