#include "formats/dtype.hpp"

#include <array>  // std::array

#include "util/text.hpp"  // find_named
#include "util/units.hpp"

namespace vramfit {
namespace {
// Widths: IEEE 754 binary32/binary16, bfloat16, OCP FP8 (E4M3/E5M2), two's-complement ints.
constexpr std::array<DTypeInfo, 6> kDTypes{{
    {DType::fp32, "fp32", 32, "32-bit float: full precision"},
    {DType::fp16, "fp16", 16, "16-bit float (IEEE half)"},
    {DType::bf16, "bf16", 16, "16-bit bfloat: fp32 range, fewer mantissa bits"},
    {DType::fp8, "fp8", 8, "8-bit float (E4M3), Hopper and newer"},
    {DType::int8, "int8", 8, "8-bit integer weights (e.g. LLM.int8)"},
    {DType::int4, "int4", 4, "4-bit integer weights, no group-scale overhead counted"},
}};
}  // namespace

std::span<const DTypeInfo> all_dtypes() noexcept { return kDTypes; }

const DTypeInfo& dtype_info(DType dtype) noexcept { return kDTypes[static_cast<std::size_t>(dtype)]; }

std::optional<DType> parse_dtype(std::string_view name) noexcept {
  if (const DTypeInfo* info = find_named(kDTypes, name)) return info->dtype;
  if (name == "float32") return DType::fp32;
  if (name == "float16" || name == "half") return DType::fp16;
  if (name == "bfloat16") return DType::bf16;
  return std::nullopt;
}

std::optional<std::uint64_t> bytes_for(std::uint64_t elements, DType dtype) noexcept {
  const auto bits = checked_mul(elements, dtype_info(dtype).bits);
  if (!bits) return std::nullopt;
  return ceil_div(*bits, 8);
}

}  // namespace vramfit
