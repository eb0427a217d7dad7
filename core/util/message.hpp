#pragma once
// A text for people that a client can render in its own language: an id, the values it mentions (raw: bytes and
// counts as digits, so a page formats them in its locale and unit) and the English sentence, which the CLI prints
// and any client may show as it is. The page's templates (web/js/i18n/messages.js) render each id in English and
// German; tests/node/messages.test.mjs checks that every id the core writes has both, with the same parameters.
//
// Converting a plain note is one line: notes.push_back("Some sentence.") becomes
//   notes.push_back(message("area.what", "Some sentence."));
// and a built one names its values: message("area.what", "{n} of {total} layers", {arg::count("n", a), arg::count("total", b)}).
// A Message is never made from a plain string: code that reads one as text reads `.text`.
#include <cstdint>           // std::uint64_t
#include <initializer_list>  // std::initializer_list
#include <string>            // std::string
#include <string_view>       // std::string_view
#include <utility>           // std::move
#include <vector>            // std::vector

namespace vramfit {

// One value a message mentions: the JSON carries `text`, or the number (`integer` or `real`, as `kind` says);
// `english` is how the English sentence shows it ("1,234,567 B", "0.92", "NVIDIA H100 SXM").
struct Message;

// A `message` arg is a whole message of its own inside another (a clause that has its own wording in each
// language): the JSON carries its {id, args} as the value.
struct MessageArg {
  enum class Kind { text, integer, real, message };
  std::string name;
  Kind kind = Kind::text;
  std::string text;
  std::int64_t integer = 0;
  double real = 0;
  std::string english;
  std::vector<Message> nested;  // Kind::message: the one message
};

struct Message {
  std::string id;                 // dotted lowercase ("vllm.kv_short"); "" only in an empty Message
  std::vector<MessageArg> args;
  std::string text;               // the English sentence

  // Declared so that Message is no aggregate: a string in braces ({"...", …}) never fills its id by brace elision.
  Message() = default;
  bool empty() const noexcept { return text.empty(); }  // no message (an optional text not given)
};

// `english` with each {name} replaced by that arg's English form. An id is dotted lowercase ("vllm.kv_short").
Message message(std::string_view id, std::string_view english, std::initializer_list<MessageArg> args = {});
Message message(std::string_view id, std::string_view english, std::vector<MessageArg> args);

// The arg called `name`, to pass a value on to another message (an empty text when there is none).
MessageArg arg_named(const Message& m, std::string_view name);

// The args' forms. A name ending in "bytes" is a byte count: the page shows it in GB or GiB.
namespace arg {
MessageArg count(std::string_view name, std::uint64_t v);                   // "12,345" in English
MessageArg digits(std::string_view name, std::uint64_t v);                  // "12345": a plain integer
MessageArg signed_count(std::string_view name, std::int64_t v);             // "-12,345"
MessageArg bytes(std::string_view name, std::uint64_t v);                   // "12,345 B"
MessageArg gib(std::string_view name, std::uint64_t v, int decimals);       // "12.3 GiB"
MessageArg gb(std::string_view name, std::uint64_t v, int decimals);        // "12.3 GB"
MessageArg fixed(std::string_view name, double v, int decimals);            // "0.92"
MessageArg general(std::string_view name, double v, int precision);         // printf's %g
MessageArg text(std::string_view name, std::string_view v);                 // a name, a value as typed, a list
// A value the JSON carries as `v`, the same in every language ("[…]", "\"big\""), that the English sentence words
// as `english` ("an array", "the text \"big\"").
MessageArg text(std::string_view name, std::string_view v, std::string_view english);
MessageArg message(std::string_view name, const Message& m);                // a clause worded in each language
}  // namespace arg

}  // namespace vramfit
