#pragma once
// The ggml tensor types GGUF files store, with the block geometry that makes their size exact.
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string_view>  // std::string_view

namespace vramfit {

// Type ids exactly as ggml/include/ggml.h numbers them (the value stored in a GGUF tensor info).
// Gaps are types removed from GGUF files (Q4_2/Q4_3 = 4/5, the Q4_0_x_x/IQ4_NL_x_x repacks = 31-33, 36-38).
enum class GgmlType : std::uint32_t {
  f32 = 0, f16 = 1, q4_0 = 2, q4_1 = 3, q5_0 = 6, q5_1 = 7, q8_0 = 8, q8_1 = 9,
  q2_k = 10, q3_k = 11, q4_k = 12, q5_k = 13, q6_k = 14, q8_k = 15,
  iq2_xxs = 16, iq2_xs = 17, iq3_xxs = 18, iq1_s = 19, iq4_nl = 20, iq3_s = 21, iq2_s = 22, iq4_xs = 23,
  i8 = 24, i16 = 25, i32 = 26, i64 = 27, f64 = 28, iq1_m = 29, bf16 = 30,
  tq1_0 = 34, tq2_0 = 35, mxfp4 = 39, nvfp4 = 40, q1_0 = 41, q2_0 = 42,
};

struct GgmlTypeInfo {
  GgmlType type;
  std::string_view name;          // as gguf-py's GGMLQuantizationType spells it: "Q4_K", "BF16"
  std::uint32_t block_elements;   // elements per block (ggml type_traits.blck_size)
  std::uint32_t block_bytes;      // bytes per block (type_traits.type_size = sizeof(block_*))
  bool quantized;                 // block-quantized (not a plain float or integer)
};

std::span<const GgmlTypeInfo> all_ggml_types() noexcept;
// nullptr for an id ggml does not know (or no longer supports in GGUF files).
const GgmlTypeInfo* ggml_type_info(std::uint32_t id) noexcept;
const GgmlTypeInfo& ggml_type_info(GgmlType type) noexcept;
// Case-insensitive: "q4_k", "Q4_K", "bf16".
const GgmlTypeInfo* ggml_type_by_name(std::string_view name);

// elements / block_elements × block_bytes; nothing when `elements` is not a whole number of blocks
// (ggml requires the row length to be) or on 64-bit overflow.
std::optional<std::uint64_t> ggml_bytes(const GgmlTypeInfo& info, std::uint64_t elements) noexcept;
std::optional<std::uint64_t> ggml_bytes(GgmlType type, std::uint64_t elements) noexcept;

// 8 · block_bytes / block_elements: Q4_K 4.5, Q6_K 6.5625.
double ggml_bits_per_weight(const GgmlTypeInfo& info) noexcept;

}  // namespace vramfit
