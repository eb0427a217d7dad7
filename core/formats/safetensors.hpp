#pragma once
// safetensors headers (huggingface/safetensors README: 8-byte little-endian header length, JSON header,
// byte buffer), sharded checkpoints with model.safetensors.index.json, and packed GPTQ/AWQ/bitsandbytes
// weights counted as the parameters they stand for.
#include <cstddef>      // std::byte
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "formats/imported_model.hpp"
#include "util/result.hpp"
#include "vramfit/safetensors_file.hpp"  // SafetensorsFile

namespace vramfit {

// Bits per element of a safetensors dtype ("BF16" 16, "F8_E4M3" 8, "F4" 4); nothing for unknown names.
std::optional<std::uint32_t> safetensors_dtype_bits(std::string_view dtype) noexcept;

struct SafetensorsTensor {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0, end = 0;  // data_offsets, relative to the byte buffer after the header
  std::uint64_t elements = 0;
};

struct SafetensorsHeader {
  // Non-zero: the header runs past the bytes given; read this many from the start and call again.
  std::uint64_t need_prefix_bytes = 0;
  std::uint64_t header_bytes = 0;  // the JSON header's length N; tensor data starts at 8 + N
  std::vector<SafetensorsTensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;  // __metadata__
};

inline constexpr std::uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;  // the reference implementation's limit

Result<SafetensorsHeader> parse_safetensors(std::span<const std::byte> prefix, std::uint64_t file_size);

struct SafetensorsIndex {
  std::uint64_t total_size = 0;                                  // metadata.total_size, 0 when absent
  std::vector<std::pair<std::string, std::string>> weight_map;   // tensor name → shard file name
  std::vector<std::string> files;                                // distinct shard names, in first-seen order
};
Result<SafetensorsIndex> parse_safetensors_index(std::string_view json_text);

// One checkpoint from its shard headers, optionally with config.json (architecture, quantization bits) and
// the index (which shards must be present). Without config.json the spec is bare (parameter count only).
// A shard whose header is longer than its prefix sets need_file and need_prefix_bytes.
Result<ImportedModel> import_safetensors(std::span<const SafetensorsFile> files, std::string_view config_json,
                                         std::string_view index_json);

}  // namespace vramfit
