#include "util/quantity.hpp"

#include <cmath>    // std::isfinite, std::llround, std::floor
#include <cstdlib>  // std::strtod
#include <string>   // std::string

namespace vramfit {
namespace {

std::optional<double> parse_scaled(std::string_view text, double k, double m, double g, double t) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  // Decimal only: strtod would also take " 8", "0x10" (hex), "inf" and "nan".
  if (text.find_first_not_of("0123456789.eE+-kKmMbBgGtT") != std::string_view::npos ||
      !(text.front() >= '0' && text.front() <= '9'))
    return std::nullopt;
  const std::string copy(text);  // strtod needs a terminated string
  char* end = nullptr;
  const double base = std::strtod(copy.c_str(), &end);
  if (end == copy.c_str()) return std::nullopt;
  const std::string_view suffix(end);
  double scale = 1;
  if (suffix == "k" || suffix == "K") scale = k;
  else if (suffix == "m" || suffix == "M") scale = m;
  else if (suffix == "b" || suffix == "B" || suffix == "g" || suffix == "G") scale = g;
  else if (suffix == "t" || suffix == "T") scale = t;
  else if (!suffix.empty()) return std::nullopt;
  const double value = base * scale;
  if (!std::isfinite(value) || value < 1 || value > 1e18) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::uint64_t> parse_count(std::string_view text) {
  const auto v = parse_scaled(text, 1e3, 1e6, 1e9, 1e12);
  if (!v) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(*v));
}

std::optional<std::uint64_t> parse_tokens(std::string_view text) {
  const auto v = parse_scaled(text, 1024, 1024.0 * 1024, -1, -1);
  if (!v || *v != std::floor(*v)) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

}  // namespace vramfit
