#pragma once
// printf's "%.*f" and "%.*g" for the core's messages and explanations, without printf: musl's printf pulls
// its whole formatter and 128-bit long-double soft-float into the wasm.
#include <string>  // std::string

namespace vramfit::detail {

// printf("%.*f", decimals, x) for 0 ≤ decimals ≤ 15: the binary value rounded half to even, as printf does;
// every digit of a large value ("%.0f" of 1e300 is the double's exact integer).
std::string fixed_text(double x, int decimals);

// printf("%.*g", precision, x) for 1 ≤ precision ≤ 15: precision significant digits, trailing zeros dropped,
// an exponent (e+XX) below 1e-4 and from 10^precision up. printf's digits exactly for |x| ≥ 10^(precision−23)
// (1e-18 at 5 digits); below that the scaling by more than 10^22 is rounded, so a value within a few ulps of a
// half-way point may differ from printf in its last digit.
std::string general_text(double x, int precision);

}  // namespace vramfit::detail
