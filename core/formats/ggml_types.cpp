#include "formats/ggml_types.hpp"

#include <array>  // std::array

#include "util/text.hpp"  // lower_ascii
#include "util/units.hpp"

namespace vramfit {
namespace {

constexpr std::uint32_t kQK_K = 256;  // super-block of the k-quants and i-quants (ggml-common.h QK_K)

// Block sizes from ggml/src/ggml-common.h (each block_* struct has a static_assert on its size) and
// ggml/src/ggml.c type_traits; cross-checked against gguf-py/gguf/constants.py GGML_QUANT_SIZES.
constexpr std::array<GgmlTypeInfo, 35> kTypes{{
    {GgmlType::f32, "F32", 1, 4, false},
    {GgmlType::f16, "F16", 1, 2, false},
    {GgmlType::q4_0, "Q4_0", 32, 18, true},         // half d + 16 B nibbles
    {GgmlType::q4_1, "Q4_1", 32, 20, true},         // half d, m + 16 B
    {GgmlType::q5_0, "Q5_0", 32, 22, true},         // half d + 4 B high bits + 16 B
    {GgmlType::q5_1, "Q5_1", 32, 24, true},         // half d, m + 4 B + 16 B
    {GgmlType::q8_0, "Q8_0", 32, 34, true},         // half d + 32 int8
    {GgmlType::q8_1, "Q8_1", 32, 36, true},         // half d, s + 32 int8
    {GgmlType::q2_k, "Q2_K", kQK_K, 84, true},      // 2 half + QK_K/16 scales + QK_K/4
    {GgmlType::q3_k, "Q3_K", kQK_K, 110, true},     // half + QK_K/4 + QK_K/8 + 12 scales
    {GgmlType::q4_k, "Q4_K", kQK_K, 144, true},     // 2 half + 12 scales + QK_K/2
    {GgmlType::q5_k, "Q5_K", kQK_K, 176, true},     // 2 half + 12 + QK_K/8 + QK_K/2
    {GgmlType::q6_k, "Q6_K", kQK_K, 210, true},     // half + QK_K/16 + 3·QK_K/4
    {GgmlType::q8_k, "Q8_K", kQK_K, 292, true},     // float + QK_K int8 + QK_K/16 int16 sums
    {GgmlType::iq2_xxs, "IQ2_XXS", kQK_K, 66, true},  // half + QK_K/8 uint16
    {GgmlType::iq2_xs, "IQ2_XS", kQK_K, 74, true},    // half + QK_K/8 uint16 + QK_K/32
    {GgmlType::iq3_xxs, "IQ3_XXS", kQK_K, 98, true},  // half + 3·QK_K/8
    {GgmlType::iq1_s, "IQ1_S", kQK_K, 50, true},      // half + QK_K/8 + QK_K/16
    {GgmlType::iq4_nl, "IQ4_NL", 32, 18, true},       // half + 16 B
    {GgmlType::iq3_s, "IQ3_S", kQK_K, 110, true},     // half + 13·QK_K/32 + 4 scales
    {GgmlType::iq2_s, "IQ2_S", kQK_K, 82, true},      // half + QK_K/4 + QK_K/16
    {GgmlType::iq4_xs, "IQ4_XS", kQK_K, 136, true},   // half + uint16 + QK_K/64 + QK_K/2
    {GgmlType::i8, "I8", 1, 1, false},
    {GgmlType::i16, "I16", 1, 2, false},
    {GgmlType::i32, "I32", 1, 4, false},
    {GgmlType::i64, "I64", 1, 8, false},
    {GgmlType::f64, "F64", 1, 8, false},
    {GgmlType::iq1_m, "IQ1_M", kQK_K, 56, true},      // QK_K/8 + QK_K/16 + QK_K/32 (scale inside)
    {GgmlType::bf16, "BF16", 1, 2, false},
    {GgmlType::tq1_0, "TQ1_0", kQK_K, 54, true},      // half + QK_K/64 + (QK_K - 4·QK_K/64)/5
    {GgmlType::tq2_0, "TQ2_0", kQK_K, 66, true},      // half + QK_K/4
    {GgmlType::mxfp4, "MXFP4", 32, 17, true},         // E8M0 exponent + 16 B E2M1
    {GgmlType::nvfp4, "NVFP4", 64, 36, true},         // 4 UE4M3 scales + 32 B E2M1
    {GgmlType::q1_0, "Q1_0", 128, 18, true},          // half + QK1_0/8 sign bits
    {GgmlType::q2_0, "Q2_0", 64, 18, true},           // half + QK2_0/4 (2 bits each)
}};

}  // namespace

std::span<const GgmlTypeInfo> all_ggml_types() noexcept { return kTypes; }

const GgmlTypeInfo* ggml_type_info(std::uint32_t id) noexcept {
  for (const auto& info : all_ggml_types())
    if (static_cast<std::uint32_t>(info.type) == id) return &info;
  return nullptr;
}

const GgmlTypeInfo& ggml_type_info(GgmlType type) noexcept {
  const GgmlTypeInfo* info = ggml_type_info(static_cast<std::uint32_t>(type));
  return info ? *info : kTypes.front();  // every enumerator is in the table (checked by a test)
}

const GgmlTypeInfo* ggml_type_by_name(std::string_view name) {
  const std::string wanted = lower_ascii(name);
  for (const auto& info : all_ggml_types())
    if (info.name.size() == name.size() && lower_ascii(info.name) == wanted) return &info;
  return nullptr;
}

std::optional<std::uint64_t> ggml_bytes(const GgmlTypeInfo& info, std::uint64_t elements) noexcept {
  if (info.block_elements == 0 || elements % info.block_elements != 0) return std::nullopt;
  return checked_mul(elements / info.block_elements, info.block_bytes);
}

std::optional<std::uint64_t> ggml_bytes(GgmlType type, std::uint64_t elements) noexcept {
  return ggml_bytes(ggml_type_info(type), elements);
}

double ggml_bits_per_weight(const GgmlTypeInfo& info) noexcept {
  return info.block_elements ? 8.0 * info.block_bytes / info.block_elements : 0.0;
}

}  // namespace vramfit
