#pragma once
// Plain element types for weights and the KV cache, and their storage cost.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string_view>  // std::string_view

namespace vramfit {

enum class DType { fp32, fp16, bf16, fp8, int8, int4 };

struct DTypeInfo {
  DType dtype;
  std::string_view name;     // as flags and URLs spell it
  std::uint32_t bits;        // storage bits per element
  std::string_view summary;  // one line for people
};

std::span<const DTypeInfo> all_dtypes() noexcept;
const DTypeInfo& dtype_info(DType dtype) noexcept;
std::optional<DType> parse_dtype(std::string_view name) noexcept;

// ceil(elements · bits / 8), or nothing on 64-bit overflow.
std::optional<std::uint64_t> bytes_for(std::uint64_t elements, DType dtype) noexcept;

}  // namespace vramfit
