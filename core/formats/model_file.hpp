#pragma once
// One entry point for a model file's header, whatever its format: the CLI (by path) and the page (by
// File.slice) hand it the file's first bytes and its size, and read a longer prefix while it asks.
#include <cstddef>      // std::byte
#include <cstdint>      // std::uint64_t
#include <span>         // std::span
#include <string_view>  // std::string_view

#include "formats/imported_model.hpp"
#include "util/result.hpp"

namespace vramfit {

// `file_name` picks the format (.gguf or .safetensors); `config_json` (may be empty) gives a safetensors
// checkpoint its architecture. When the header runs past the prefix, the result has need_prefix_bytes set:
// read that many bytes from the start and call again.
Result<ImportedModel> import_model_header(std::string_view file_name, std::span<const std::byte> prefix,
                                          std::uint64_t file_size, std::string_view config_json);

}  // namespace vramfit
