#pragma once
// Private to the training sources: overflow-checked sums of products, for byte counts built from shapes.
#include <cstdint>           // std::uint64_t
#include <initializer_list>  // std::initializer_list
#include <optional>          // std::optional
#include <string>            // std::string, std::to_string

#include "util/units.hpp"

namespace vramfit::detail {

// a·b·c·…, or nothing on 64-bit overflow.
inline std::optional<std::uint64_t> product(std::initializer_list<std::uint64_t> factors) noexcept {
  std::uint64_t out = 1;
  for (auto f : factors) {
    const auto next = checked_mul(out, f);
    if (!next) return std::nullopt;
    out = *next;
  }
  return out;
}

// Σ of products; remembers whether any step overflowed.
class CheckedSum {
 public:
  CheckedSum& add(std::initializer_list<std::uint64_t> factors) noexcept {
    const auto p = product(factors);
    const auto s = p ? checked_add(sum_, *p) : std::nullopt;
    if (!s) overflow_ = true;
    else sum_ = *s;
    return *this;
  }
  CheckedSum& add(std::uint64_t value) noexcept { return add({value}); }
  CheckedSum& add(std::optional<std::uint64_t> value) noexcept {
    if (!value) overflow_ = true;
    else add({*value});
    return *this;
  }
  std::uint64_t value() const noexcept { return sum_; }
  bool overflow() const noexcept { return overflow_; }
  std::optional<std::uint64_t> result() const noexcept {
    if (overflow_) return std::nullopt;
    return sum_;
  }

 private:
  std::uint64_t sum_ = 0;
  bool overflow_ = false;
};

// ceil(a·b / d) without overflow in the common case; nothing when a·b overflows. d > 0.
// ceil(a·b / d) with a 128-bit intermediate: a·b may exceed 2^64 (1e9 embedding elements × 1.4e11 bytes)
// while the quotient fits. Nothing when d = 0 or the quotient does not fit 64 bits.
__extension__ typedef unsigned __int128 uint128;  // gcc, clang and Emscripten all have it
inline std::optional<std::uint64_t> mul_div_ceil(std::uint64_t a, std::uint64_t b, std::uint64_t d) noexcept {
  if (d == 0) return std::nullopt;
  const uint128 ab = static_cast<uint128>(a) * b;
  const uint128 q = ab / d + (ab % d != 0);
  if (q > static_cast<uint128>(~std::uint64_t{0})) return std::nullopt;
  return static_cast<std::uint64_t>(q);
}

inline std::string num(std::uint64_t v) { return std::to_string(v); }

}  // namespace vramfit::detail
