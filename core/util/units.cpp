#include "util/units.hpp"

#include "util/number_text.hpp"  // fixed_text

namespace vramfit {

namespace {
std::string right_aligned(std::string text, std::size_t width) {
  if (text.size() < width) text.insert(0, width - text.size(), ' ');
  return text;
}
}  // namespace

std::string gb_and_gib(std::uint64_t bytes) {
  const auto b = static_cast<double>(bytes);
  return right_aligned(detail::fixed_text(b / 1e9, 2), 9) + " GB " +
         right_aligned(detail::fixed_text(b / static_cast<double>(kGiB), 2), 9) + " GiB";
}

}  // namespace vramfit
