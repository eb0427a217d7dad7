#pragma once
// One message or explanation built in one string. Each piece is appended in place by an out-of-line call:
// a chain `a + " × " + b + " B"` makes and destroys a temporary std::string per +, which in the wasm is far
// more code than the pieces themselves.
#include <concepts>     // std::integral, std::same_as
#include <cstdint>      // std::uint64_t, std::int64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_signed_v

namespace vramfit::detail {

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
