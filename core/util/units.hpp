#pragma once
// Byte units and overflow-checked arithmetic: every byte count in the core is an exact integer.
#include <cstdint>   // std::uint64_t, std::int64_t, INT64_MAX
#include <optional>  // std::optional

namespace vramfit {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;
inline constexpr std::uint64_t kGB = 1'000'000'000;

// a·b, or nothing when it would not fit in 64 bits (a hostile config must not wrap around).
inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// ceil(a / b) for b > 0.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) noexcept { return a / b + (a % b != 0); }

// a − b as a signed count of bytes, each side capped at INT64_MAX (free or missing memory, a saving).
constexpr std::int64_t signed_difference(std::uint64_t a, std::uint64_t b) noexcept {
  constexpr auto kMax = static_cast<std::uint64_t>(INT64_MAX);
  return static_cast<std::int64_t>(a < kMax ? a : kMax) - static_cast<std::int64_t>(b < kMax ? b : kMax);
}

}  // namespace vramfit
