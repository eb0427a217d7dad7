#include "util/message.hpp"

#include <cstdlib>  // std::strtod

#include "util/number_text.hpp"
#include "util/text.hpp"
#include "util/units.hpp"

namespace vramfit {

namespace {

// "{low}-{high}" (or with an en dash) whose two ends read the same: one figure, not "5.2-5.2". The page's
// templates follow the same rule (web/js/i18n/messages.js).
std::string one_figure_ranges(std::string_view english, const std::vector<MessageArg>& args) {
  const MessageArg *low = nullptr, *high = nullptr;
  for (const MessageArg& a : args) {
    if (a.name == "low") low = &a;
    if (a.name == "high") high = &a;
  }
  std::string text(english);
  if (!low || !high || low->english != high->english) return text;
  for (std::string_view range : {"{low}-{high}", "{low}–{high}"})
    for (std::size_t at = text.find(range); at != std::string::npos; at = text.find(range, at))
      text.replace(at, range.size(), "{low}");
  return text;
}

std::string render(std::string_view english_template, const std::vector<MessageArg>& args) {
  const std::string ranged = one_figure_ranges(english_template, args);
  const std::string_view english = ranged;
  std::string out;
  out.reserve(english.size() + 16 * args.size());
  for (std::size_t i = 0; i < english.size(); ++i) {
    const std::size_t close = english[i] == '{' ? english.find('}', i) : std::string_view::npos;
    const MessageArg* found = nullptr;
    if (close != std::string_view::npos) {
      const std::string_view name = english.substr(i + 1, close - i - 1);
      for (const MessageArg& a : args)
        if (a.name == name) found = &a;
    }
    if (!found) {
      out += english[i];
      continue;
    }
    out += found->english;
    i = close;
  }
  return out;
}

MessageArg integer(std::string_view name, std::int64_t v, std::string english) {
  MessageArg a;
  a.name = name;
  a.kind = MessageArg::Kind::integer;
  a.integer = v;
  a.english = std::move(english);
  return a;
}

MessageArg real(std::string_view name, double v, std::string english) {
  MessageArg a;
  a.name = name;
  a.kind = MessageArg::Kind::real;
  a.real = v;
  a.english = std::move(english);
  return a;
}

}  // namespace

Message message(std::string_view id, std::string_view english, std::vector<MessageArg> args) {
  Message m;
  m.id = id;
  m.text = render(english, args);
  m.args = std::move(args);
  return m;
}

Message message(std::string_view id, std::string_view english, std::initializer_list<MessageArg> args) {
  return message(id, english, std::vector<MessageArg>(args));
}

MessageArg arg_named(const Message& m, std::string_view name) {
  for (const MessageArg& a : m.args)
    if (a.name == name) return a;
  return arg::text(name, "");
}

namespace arg {

MessageArg count(std::string_view name, std::uint64_t v) {
  return integer(name, static_cast<std::int64_t>(v), (detail::Text() << detail::Grouped{v}).str());
}
MessageArg message(std::string_view name, const Message& m) {
  MessageArg a;
  a.name = name;
  a.kind = MessageArg::Kind::message;
  a.english = m.text;
  a.nested.push_back(m);
  return a;
}
MessageArg digits(std::string_view name, std::uint64_t v) {
  return integer(name, static_cast<std::int64_t>(v), (detail::Text() << v).str());
}
MessageArg signed_count(std::string_view name, std::int64_t v) {
  const std::uint64_t magnitude = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  return integer(name, v, (detail::Text() << (v < 0 ? "-" : "") << detail::Grouped{magnitude}).str());
}
MessageArg bytes(std::string_view name, std::uint64_t v) {
  return integer(name, static_cast<std::int64_t>(v), (detail::Text() << detail::Grouped{v} << " B").str());
}
MessageArg gib(std::string_view name, std::uint64_t v, int decimals) {
  const double x = static_cast<double>(v) / static_cast<double>(kGiB);
  return integer(name, static_cast<std::int64_t>(v), (detail::Text() << detail::Fixed{x, decimals} << " GiB").str());
}
MessageArg gb(std::string_view name, std::uint64_t v, int decimals) {
  const double x = static_cast<double>(v) / static_cast<double>(kGB);
  return integer(name, static_cast<std::int64_t>(v), (detail::Text() << detail::Fixed{x, decimals} << " GB").str());
}
// The value as the English sentence rounds it, so every language shows the same figure ("1.219e+05" is 121900,
// not 121902.921): read back from that text, which number_text writes with a '.' whatever the locale.
MessageArg fixed(std::string_view name, double v, int decimals) {
  std::string english = detail::fixed_text(v, decimals);
  const double shown = std::strtod(english.c_str(), nullptr);
  return real(name, shown, std::move(english));
}
MessageArg general(std::string_view name, double v, int precision) {
  std::string english = detail::general_text(v, precision);
  const double shown = std::strtod(english.c_str(), nullptr);
  return real(name, shown, std::move(english));
}
MessageArg text(std::string_view name, std::string_view v) {
  MessageArg a;
  a.name = name;
  a.text = v;
  a.english = v;
  return a;
}
MessageArg text(std::string_view name, std::string_view v, std::string_view english) {
  MessageArg a = text(name, v);
  a.english = english;
  return a;
}

}  // namespace arg

}  // namespace vramfit
