#pragma once
// Text helpers the whole core, the CLI and the bindings share: names compared case-insensitively, lists and
// switches as people type them, and the Text builder for messages. (A suffix test is the standard's
// std::string_view::ends_with.)
#include <concepts>     // std::integral, std::same_as
#include <cstdint>      // std::uint64_t, std::int64_t
#include <iterator>     // std::begin
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_signed_v
#include <vector>       // std::vector

namespace vramfit {

// ASCII letters lowered, every other byte (UTF-8 included) kept: "Q4_K_M" → "q4_k_m". Not std::tolower,
// whose answer depends on the C locale.
std::string lower_ascii(std::string_view text);

// ASCII letters lowered, '-' and '_' both read as `separator`: the parsers of choice names accept
// "Full-Shard", "full_shard" and "FULL_SHARD" alike.
std::string fold_name(std::string_view text, char separator);

// Lowercase letters and digits only, for lookups that ignore case and punctuation: "NVIDIA H100 SXM",
// "h100-sxm" and "H100_SXM" all give "nvidiah100sxm".
std::string lookup_key(std::string_view text);

// lookup_key that keeps one '.' where a space parted two numbers: "RTX 3060 12GB" → "rtx3060.12gb".
std::string name_key(std::string_view text);

// Whether name key `part` ("4090", "h100") stands in name key `key` ("geforcertx4090") as a whole number: no digit
// right before or after it, so "a10" is not read in "a100" nor "3060" in "30600".
bool contains_name_part(std::string_view key, std::string_view part) noexcept;

// The `most` names closest to `text` by the longest run of letters and digits they share (at least 3), closest
// first: what a "did you mean" offers.
std::vector<std::string> closest_names(const std::vector<std::string>& names, std::string_view text, std::size_t most);

// The items of a comma-separated list ("h100-sxm, l40s"), spaces around each trimmed, empty items dropped.
std::vector<std::string> split_list(std::string_view text);

// A switch as the CLI's flags and the request's strings spell it: on/off, true/false or 1/0, in any case.
// Nothing for anything else.
std::optional<bool> parse_switch(std::string_view text);
inline constexpr std::string_view kSwitchSpellings = "on, off, true, false, yes, no, 1 or 0";  // for error messages

// A spelling and the value it names, for the tables the choice parsers read: {"lora", TrainingMode::lora}.
template <class T>
struct NamedValue {
  std::string_view name;
  T value;
};

// The entry of `table` whose `name` member is exactly `name` (fold it first), or null. Any entry with a `name`:
// NamedValue, DTypeInfo, OptimizerInfo.
template <class Table>
auto find_named(const Table& table, std::string_view name) noexcept -> decltype(&*std::begin(table)) {
  for (const auto& entry : table)
    if (entry.name == name) return &entry;
  return nullptr;
}

// The names of a table joined with ", " for messages and help: "train, lora, qlora".
template <class Table>
std::string join_names(const Table& table) {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

}  // namespace vramfit

namespace vramfit::detail {

// One message or explanation built in one string. Each piece is appended in place by an out-of-line call:
// a chain `a + " × " + b + " B"` makes and destroys a temporary std::string per +, which in the wasm is far
// more code than the pieces themselves.

// Number forms the messages use, appended without a temporary string.
struct Grouped {  // "12,345,678" for explanations people read
  std::uint64_t value;
};
struct Fixed {  // fixed_text(value, decimals): printf's "%.*f"
  double value;
  int decimals;
};
struct General {  // general_text(value, precision): printf's "%.*g"
  double value;
  int precision;
};

class Text {
 public:
  Text& operator<<(std::string_view piece);
  Text& operator<<(const char* piece);
  Text& operator<<(const std::string& piece);
  Text& operator<<(char c);
  Text& operator<<(std::uint64_t v);  // plain digits, as std::to_string
  Text& operator<<(std::int64_t v);
  Text& operator<<(Grouped g);
  Text& operator<<(Fixed f);
  Text& operator<<(General g);
  // Every other integer type (int, std::size_t, std::uint32_t) as the 64-bit forms; char and bool are not
  // numbers here.
  template <std::integral I>
    requires(!std::same_as<I, char> && !std::same_as<I, bool>)
  Text& operator<<(I v) {
    if constexpr (std::is_signed_v<I>) return *this << static_cast<std::int64_t>(v);
    else return *this << static_cast<std::uint64_t>(v);
  }

  // The text, moved out: call it once, last.
  std::string str();  // out of line: one copy of the move for every message

 private:
  std::string text_;
};

}  // namespace vramfit::detail
