#include "util/json_writer.hpp"

#include <cassert>  // assert

#include <nlohmann/json.hpp>

#include <charconv>  // std::to_chars (integers)
#include <cmath>     // std::isfinite
#include <utility>   // std::swap

namespace vramfit::detail {

void JsonWriter::prefix(const char* key) {
  if (!first_) out_ += ',';
  first_ = false;
  if (key == nullptr) return;  // an array element or the top-level value
  const std::string_view k(key);
  members_.push_back({keys_.size(), k.size(), out_.size()});
  keys_ += k;
  quoted(k);
  out_ += ':';
}

void JsonWriter::open(const char* key, char bracket) {
  prefix(key);
  out_ += bracket;
  first_ = true;
  open_.push_back(bracket == '{' ? members_.size() : kArray);
}

void JsonWriter::close(char bracket) {
  if (!open_.empty()) {
    if (open_.back() != kArray) sort_members(open_.back());
    open_.pop_back();
  }
  out_ += bracket;
  first_ = false;
}

// Each member's text runs from its begin to the comma before the next one (or to the end); when the keys
// are out of order the texts are put back in key order. An insertion sort: objects hold a few dozen members
// at most, and most arrive sorted.
void JsonWriter::sort_members(std::size_t first) {
  const std::size_t n = members_.size() - first;
  if (n == 0) return;
  auto key = [&](std::size_t i) {
    const Member& m = members_[first + i];
    return std::string_view(keys_).substr(m.key_at, m.key_size);
  };
  bool sorted = true;
  for (std::size_t i = 1; i < n && sorted; ++i) sorted = !(key(i) < key(i - 1));
  const std::size_t body = members_[first].begin;
  const std::size_t keys_at = members_[first].key_at;
  auto& order = order_;
  order.clear();
  for (std::size_t i = 0; i < n; ++i) {
    order.push_back(i);
    for (std::size_t j = i; j > 0 && key(order[j]) < key(order[j - 1]); --j) std::swap(order[j], order[j - 1]);
  }
  // A key written twice would reach JavaScript as two members, of which JSON.parse keeps the last.
  for (std::size_t i = 1; i < n; ++i) assert(key(order[i]) != key(order[i - 1]) && "a JSON key written twice");
  if (!sorted) {
    auto end_of = [&](std::size_t i) { return i + 1 < n ? members_[first + i + 1].begin - 1 : out_.size(); };
    std::string& text = reorder_;
    text.clear();
    for (std::size_t i : order) {
      if (!text.empty()) text += ',';
      text.append(out_, members_[first + i].begin, end_of(i) - members_[first + i].begin);
    }
    out_.replace(body, std::string::npos, text);
  }
  members_.resize(first);
  keys_.resize(keys_at);
}

void JsonWriter::put_bool(const char* key, bool v) {
  prefix(key);
  out_ += v ? "true" : "false";
}

void JsonWriter::put_null(const char* key) {
  prefix(key);
  out_ += "null";
}

void JsonWriter::put_int(const char* key, std::int64_t v) {
  prefix(key);
  char buf[24];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void JsonWriter::put_uint(const char* key, std::uint64_t v) {
  prefix(key);
  char buf[24];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void JsonWriter::put_double(const char* key, double v) {
  // nlohmann's serializer: null for NaN and infinities, else its grisu2 to_chars (shortest round trip,
  // ".0" appended to integral values, an exponent below 1e-4 and from 1e15).
  if (!std::isfinite(v)) return put_null(key);
  prefix(key);
  char buf[32];
  out_.append(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, v));
}

void JsonWriter::message_id(const char* key, const Message& m) {
  begin_object(key);
  begin_object("args");
  for (const MessageArg& a : m.args) {
    if (a.kind == MessageArg::Kind::integer) put_int(a.name.c_str(), a.integer);
    else if (a.kind == MessageArg::Kind::real) put_double(a.name.c_str(), a.real);
    else if (a.kind == MessageArg::Kind::message) message_id(a.name.c_str(), a.nested.front());
    else put_string(a.name.c_str(), a.text);
  }
  end_object();
  put_string("id", m.id);
  put_string("text", m.text);
  end_object();
}

void JsonWriter::message_ids(const char* key, const std::vector<Message>& ms) {
  begin_array(key);
  for (const Message& m : ms) message_id(nullptr, m);
  end_array();
}

void JsonWriter::put_string(const char* key, std::string_view v) {
  prefix(key);
  quoted(v);
}

void JsonWriter::put_strings(const char* key, const std::vector<std::string>& v) {
  open(key, '[');
  for (const auto& s : v) put_string(nullptr, s);
  close(']');
}

void JsonWriter::field(const char* key, std::initializer_list<std::string_view> strings) {
  open(key, '[');
  for (const auto s : strings) put_string(nullptr, s);
  close(']');
}

void JsonWriter::put_uints(const char* key, const std::vector<std::uint64_t>& v) {
  open(key, '[');
  for (const auto x : v) put_uint(nullptr, x);
  close(']');
}

// As nlohmann's dump_escaped with ensure_ascii off and error_handler_t::replace: ", \ and the control
// characters escaped (\b \t \n \f \r, else \u00xx), other characters as they are, and each maximal
// ill-formed UTF-8 subsequence (Unicode 15, §3.9, Table 3-7) replaced by one U+FFFD.
void JsonWriter::quoted(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out_ += '"';
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\b': out_ += "\\b"; break;
        case '\f': out_ += "\\f"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20) {
            out_ += "\\u00";
            out_ += kHex[c >> 4];
            out_ += kHex[c & 15];
          } else {
            out_ += static_cast<char>(c);
          }
      }
      continue;
    }
    // The lead byte sets the length and the range of the second byte: no overlongs, no surrogates, ≤ U+10FFFF.
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) length = 2;
    else if (c >= 0xE0 && c <= 0xEF) length = 3, low = c == 0xE0 ? 0xA0 : 0x80, high = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) length = 4, low = c == 0xF0 ? 0x90 : 0x80, high = c == 0xF4 ? 0x8F : 0xBF;
    std::size_t valid = 1;  // bytes of the sequence seen to be well formed
    while (valid < length && i + valid < n) {
      const auto b = static_cast<unsigned char>(s[i + valid]);
      if (b < (valid == 1 ? low : 0x80) || b > (valid == 1 ? high : 0xBF)) break;
      ++valid;
    }
    if (length != 0 && valid == length) out_.append(s.substr(i, length));
    else out_ += "\xEF\xBF\xBD";  // the byte that broke the sequence starts the next one
    i += valid;
  }
  out_ += '"';
}

void JsonWriter::dom(const nlohmann::json& v) {
  using T = nlohmann::json::value_t;
  switch (v.type()) {
    case T::object:
      open(nullptr, '{');
      for (const auto& [k, x] : v.items()) {
        if (!first_) out_ += ',';
        quoted(k);  // all of it: a parsed key may hold "\u0000"
        out_ += ':';
        first_ = true;  // the value's own prefix adds no comma
        dom(x);
      }
      return close('}');
    case T::array:
      open(nullptr, '[');
      for (const auto& x : v) dom(x);
      return close(']');
    case T::string: return put_string(nullptr, v.get_ref<const std::string&>());
    case T::boolean: return put_bool(nullptr, v.get<bool>());
    case T::number_integer: return put_int(nullptr, v.get<std::int64_t>());
    case T::number_unsigned: return put_uint(nullptr, v.get<std::uint64_t>());
    case T::number_float: return put_double(nullptr, v.get<double>());
    default: return put_null(nullptr);  // null; binary and discarded values never come out of a parse
  }
}

std::string dump(const nlohmann::json& value) {
  JsonWriter w;
  w.dom(value);
  return w.take();
}

}  // namespace vramfit::detail
