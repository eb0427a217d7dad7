#pragma once
// Counts as people write them: "7e9", "7B", "1.5T", "300B", "8k". The CLI's flags and the page's free-text
// fields (training tokens) read them through here, so both accept the same spellings.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

namespace vramfit {

// "7e9", "7000000000", "7B", "1.5T", "500M" (k = 10³, M = 10⁶, B/G = 10⁹, T = 10¹²) → a count from 1 to 10¹⁸;
// nothing if malformed or out of range.
std::optional<std::uint64_t> parse_count(std::string_view text);
// "8192", "8k" (= 8192), "128K" → tokens: k and M are powers of two, as model cards write context lengths.
std::optional<std::uint64_t> parse_tokens(std::string_view text);

}  // namespace vramfit
