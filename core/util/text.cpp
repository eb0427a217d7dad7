#include "util/text.hpp"

#include <algorithm>  // std::min, std::max
#include <utility>    // std::pair, std::swap
#include <charconv>   // std::to_chars (integers)

#include "util/number_text.hpp"
#include "util/small_sort.hpp"

namespace vramfit {

namespace {
char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

std::string lower_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower(c);
  return out;
}

std::string fold_name(std::string_view text, char separator) {
  std::string out(text);
  for (char& c : out) c = (c == '-' || c == '_') ? separator : lower(c);
  return out;
}

std::string lookup_key(std::string_view text) {
  std::string out;
  for (char c : text) {
    c = lower(c);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out += c;
  }
  return out;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string name_key(std::string_view text) {
  std::string out;
  bool gap = false;
  for (char c : text) {
    c = lower(c);
    if (!((c >= 'a' && c <= 'z') || is_digit(c))) {
      gap = !out.empty();
      continue;
    }
    if (gap && is_digit(c) && is_digit(out.back())) out += '.';
    gap = false;
    out += c;
  }
  return out;
}

namespace {

std::size_t longest_common_run(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1, 0), current(b.size() + 1, 0);
  std::size_t best = 0;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      current[j] = a[i - 1] == b[j - 1] ? previous[j - 1] + 1 : 0;
      best = std::max(best, current[j]);
    }
    std::swap(previous, current);
  }
  return best;
}

}  // namespace

bool contains_name_part(std::string_view key, std::string_view part) noexcept {
  if (part.empty()) return false;
  for (auto at = key.find(part); at != std::string_view::npos; at = key.find(part, at + 1)) {
    const bool digit_before = at > 0 && is_digit(part.front()) && is_digit(key[at - 1]);
    const auto end = at + part.size();
    const bool digit_after = end < key.size() && is_digit(part.back()) && is_digit(key[end]);
    if (!digit_before && !digit_after) return true;
  }
  return false;
}

std::vector<std::string> closest_names(const std::vector<std::string>& names, std::string_view text, std::size_t most) {
  const std::string key = lookup_key(text);
  std::vector<std::pair<std::size_t, const std::string*>> scored;
  for (const auto& name : names) {
    const auto run = longest_common_run(key, lookup_key(name));
    if (run >= 3) scored.emplace_back(run, &name);
  }
  detail::small_stable_sort(scored, [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < most; ++i) out.push_back(*scored[i].second);
  return out;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

std::optional<bool> parse_switch(std::string_view text) {
  const std::string s = lower_ascii(text);
  if (s == "on" || s == "true" || s == "yes" || s == "1") return true;
  if (s == "off" || s == "false" || s == "no" || s == "0") return false;
  return std::nullopt;
}

}  // namespace vramfit

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
