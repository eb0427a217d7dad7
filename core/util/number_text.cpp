#include "util/number_text.hpp"

#include <charconv>  // std::to_chars (integers)
#include <cmath>     // std::fma, std::nearbyint, std::floor, std::frexp
#include <cstdint>   // std::uint64_t, std::uint32_t
#include <cstring>   // std::memcpy (libc++ 13 has no std::bit_cast)

namespace vramfit::detail {
namespace {

constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};  // all exact

// a · 10^k (a ≥ 0) rounded to an integer, half to even on exact ties: exact while |k| ≤ 22 and the result
// is below 2^53. The product or quotient is rounded once; fma gives the sign of what that rounding dropped,
// which decides a result that landed exactly half-way.
double scaled_round(double a, int k) {
  for (; k > 22; k -= 22) a *= 1e22;  // beyond 10^±22 the scaling is no longer exact (see the header)
  for (; k < -22; k += 22) a /= 1e22;
  double s = 0, dropped = 0;
  if (k >= 0) {
    s = a * kPow10[k];
    dropped = std::fma(a, kPow10[k], -s);
  } else {
    s = a / kPow10[-k];
    dropped = std::fma(-s, kPow10[-k], a);  // a − s·p: the quotient's remainder, exactly
  }
  const double r = std::nearbyint(s);  // the default rounding mode: half to even
  if (std::fabs(s - r) != 0.5 || dropped == 0) return r;
  return dropped > 0 ? std::floor(s) + 1 : std::floor(s);
}

// The decimal digits of an integral double ≥ 0; beyond 2^64 every digit of its binary value, as printf.
std::string integer_digits(double v) {
  char buf[24];
  if (v < 18446744073709551616.0) return std::string(buf, std::to_chars(buf, buf + sizeof buf, static_cast<std::uint64_t>(v)).ptr);
  // v = mantissa · 2^e, doubled e times in base-10^9 limbs, least significant first (309 digits at most).
  constexpr std::uint32_t kBase = 1'000'000'000;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  const std::uint64_t mantissa = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  std::uint32_t limbs[36] = {static_cast<std::uint32_t>(mantissa % kBase), static_cast<std::uint32_t>(mantissa / kBase)};
  std::size_t used = 2;
  for (int e = static_cast<int>((bits >> 52) & 0x7FF) - 1075; e > 0; --e) {
    std::uint32_t carry = 0;
    for (std::size_t i = 0; i < used; ++i) {
      const std::uint32_t t = limbs[i] * 2 + carry;  // < 2·10^9 + 1: fits
      carry = t >= kBase;
      limbs[i] = carry ? t - kBase : t;
    }
    if (carry) limbs[used++] = carry;
  }
  std::string out(buf, std::to_chars(buf, buf + sizeof buf, limbs[used - 1]).ptr);
  for (std::size_t i = used - 1; i-- > 0;) {
    for (int d = 8; d >= 0; --d, limbs[i] /= 10) buf[d] = static_cast<char>('0' + limbs[i] % 10);
    out.append(buf, 9);
  }
  return out;
}

// printf's sign, and its text for infinities and NaN.
std::string sign_of(double x) { return std::signbit(x) ? "-" : ""; }
std::string non_finite(double x) { return sign_of(x) + (std::isnan(x) ? "nan" : "inf"); }

void drop_trailing_zeros(std::string& digits) {
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
}

}  // namespace

std::string fixed_text(double x, int decimals) {
  if (!std::isfinite(x)) return non_finite(x);
  std::string out = sign_of(x);
  const double a = std::fabs(x);
  if (decimals <= 0) return out + integer_digits(std::nearbyint(a));
  // The integer part is exact; the fraction (a − floor(a), also exact) is rounded at `decimals`.
  double whole = std::floor(a);
  double fraction = scaled_round(a - whole, decimals);
  if (fraction >= kPow10[decimals]) whole += 1, fraction = 0;  // 0.999 at 2 decimals → 1.00
  const std::string digits = integer_digits(fraction);
  out += integer_digits(whole);
  out += '.';
  out.append(static_cast<std::size_t>(decimals) - digits.size(), '0');
  return out + digits;
}

std::string general_text(double x, int precision) {
  if (!std::isfinite(x)) return non_finite(x);
  std::string out = sign_of(x);
  const double a = std::fabs(x);
  if (a == 0) return out + "0";
  std::string digits;  // `precision` significant digits
  int exponent = 0;    // the decimal exponent of a rounded to them
  if (a >= 9007199254740992.0) {
    // 2^53 and up: an integer, so its exact digits are rounded here (half to even, the rest as sticky bits).
    digits = integer_digits(a);
    exponent = static_cast<int>(digits.size()) - 1;
    const auto cut = static_cast<std::size_t>(precision);
    const bool tie = digits[cut] == '5' && digits.find_first_not_of('0', cut + 1) == std::string::npos;
    const bool up = digits[cut] > '5' || (digits[cut] == '5' && (!tie || (digits[cut - 1] - '0') % 2 == 1));
    digits.resize(cut);
    for (std::size_t i = cut; up && i-- > 0;) {
      if (digits[i] != '9') {
        ++digits[i];
        break;
      }
      digits[i] = '0';
      if (i == 0) digits.insert(0, 1, '1'), digits.pop_back(), ++exponent;  // 999.5 → 1000
    }
  } else {
    // a ∈ [2^(e−1), 2^e) puts log10(a) at or above (e − 1)·log10(2): the first guess is at most one too small.
    int e = 0;
    std::frexp(a, &e);
    exponent = static_cast<int>(std::floor((e - 1) * 0.30102999566398120));
    const double low = kPow10[precision - 1], high = kPow10[precision];
    double n = 0;  // the digits as an integer in [10^(precision−1), 10^precision]
    for (;;) {
      n = scaled_round(a, precision - 1 - exponent);
      if (n < low) --exponent;
      else if (n > high) ++exponent;
      else break;
    }
    if (n == high) n = low, ++exponent;  // 9.9996 at 4 digits → 10.00
    digits = integer_digits(n);
  }
  if (exponent < -4 || exponent >= precision) {
    out += digits[0];
    digits.erase(0, 1);
    drop_trailing_zeros(digits);
    if (!digits.empty()) out += '.' + digits;
    out += exponent < 0 ? "e-" : "e+";
    const int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude < 10) out += '0';
    return out + std::to_string(magnitude);
  }
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exponent - 1), '0');
    drop_trailing_zeros(digits);
    return out + digits;
  }
  out += digits.substr(0, static_cast<std::size_t>(exponent) + 1);
  std::string fraction = digits.substr(static_cast<std::size_t>(exponent) + 1);
  drop_trailing_zeros(fraction);
  return fraction.empty() ? out : out + '.' + fraction;
}

}  // namespace vramfit::detail
