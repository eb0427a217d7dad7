#include "util/text.hpp"

#include <charconv>  // std::to_chars (integers)

#include "util/number_text.hpp"

namespace vramfit::detail {

Text& Text::operator<<(std::string_view piece) {
  text_.append(piece);
  return *this;
}
Text& Text::operator<<(const char* piece) {
  text_.append(piece);
  return *this;
}
Text& Text::operator<<(const std::string& piece) {
  text_.append(piece);
  return *this;
}
Text& Text::operator<<(char c) {
  text_.push_back(c);
  return *this;
}
Text& Text::operator<<(std::uint64_t v) {
  char buf[20];
  text_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  return *this;
}
Text& Text::operator<<(std::int64_t v) {
  char buf[20];
  text_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  return *this;
}
Text& Text::operator<<(Grouped g) {
  char buf[20];
  const auto digits = static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, g.value).ptr - buf);
  for (std::size_t i = 0; i < digits; ++i) {
    if (i != 0 && (digits - i) % 3 == 0) text_.push_back(',');
    text_.push_back(buf[i]);
  }
  return *this;
}
[[gnu::noinline]] std::string Text::str() { return std::move(text_); }

Text& Text::operator<<(Fixed f) { return *this << fixed_text(f.value, f.decimals); }
Text& Text::operator<<(General g) { return *this << general_text(g.value, g.precision); }

}  // namespace vramfit::detail
