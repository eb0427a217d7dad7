#pragma once
// GGUF v2/v3 headers (ggml docs/gguf.md): metadata, tensor infos, and the model they describe. Reads only
// the beginning of the file; every count, length and offset is checked against the file size first.
#include <cstddef>      // std::byte
#include <cstdint>      // std::uint64_t
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "formats/imported_model.hpp"
#include "vramfit/safetensors_file.hpp"  // SafetensorsFile: a part's name, size and first bytes
#include "util/result.hpp"

namespace vramfit {

// gguf_metadata_value_type, numbered as in the spec.
enum class GgufValueType : std::uint32_t {
  uint8 = 0, int8 = 1, uint16 = 2, int16 = 3, uint32 = 4, int32 = 5, float32 = 6, boolean = 7, string = 8,
  array = 9, uint64 = 10, int64 = 11, float64 = 12,
};

struct GgufValue {
  GgufValueType type = GgufValueType::uint8;
  std::uint64_t uint = 0;  // unsigned types and bool
  std::int64_t sint = 0;   // signed types
  double real = 0;         // float32/float64
  std::string str;         // string (raw bytes; not checked for UTF-8)
  // Arrays: the element type and count always; the elements themselves only for arrays of at most
  // kGgufKeptArrayItems (per-layer arrays). A 128k-token vocabulary keeps only its count.
  GgufValueType array_type = GgufValueType::uint8;
  std::uint64_t array_count = 0;
  std::vector<GgufValue> items;

  // Any integer type (or a bool) as an unsigned value; nothing for negatives and other types.
  bool as_uint(std::uint64_t& out) const noexcept;
};
inline constexpr std::uint64_t kGgufKeptArrayItems = 4096;

struct GgufKeyValue {
  std::string key;
  GgufValue value;
};

struct GgufTensorInfo {
  std::string name;
  std::vector<std::uint64_t> dims;  // ne[0] first: the row length
  std::uint32_t type = 0;           // ggml type id
  std::uint64_t offset = 0;         // from the start of the tensor data
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;          // exact, from the ggml type's block geometry
};

struct GgufFile {
  // Non-zero: the header runs past the bytes given. Read at least this many bytes from the start and call
  // again; nothing else is filled in.
  std::uint64_t need_prefix_bytes = 0;
  std::uint32_t version = 0;
  std::uint64_t alignment = 32;     // general.alignment, default 32
  std::uint64_t data_offset = 0;    // where tensor data begins (header end, aligned)
  std::vector<GgufKeyValue> metadata;
  std::vector<GgufTensorInfo> tensors;

  const GgufValue* find(std::string_view key) const noexcept;
};

// Sane upper limits, far above any published file; a header asking for more is refused.
inline constexpr std::uint64_t kGgufMaxTensors = 1'000'000;
inline constexpr std::uint64_t kGgufMaxKeyValues = 1'000'000;
inline constexpr std::uint64_t kGgufMaxArrayDepth = 8;
inline constexpr std::uint64_t kGgufMaxNameBytes = 64;  // GGML_MAX_NAME: ggml tensor names are shorter

// `prefix`: the first bytes of the file (any length); `file_size`: its total size.
Result<GgufFile> parse_gguf(std::span<const std::byte> prefix, std::uint64_t file_size);

// The model a GGUF header describes (general.architecture and its <arch>.* keys, the tensor shapes and
// types), or need_prefix_bytes while `prefix` stops inside the header.
Result<ImportedModel> import_gguf(std::span<const std::byte> prefix, std::uint64_t file_size);

// A model gguf-split wrote as parts (-00001-of-0000n.gguf), given in order: the first part's metadata, every
// part's tensors. need_prefix_bytes and need_file while a part's header runs past its prefix.
Result<ImportedModel> import_gguf_splits(std::span<const SafetensorsFile> parts);

}  // namespace vramfit
