#pragma once
// Type-checked, exception-free reads of JSON fields. The first problem is kept with the field's path,
// so a bad config yields "config.hidden_size: expected a whole number, 0 or more, got the text "big"".
#include <nlohmann/json.hpp>

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "util/json_writer.hpp"  // dump
#include "util/result.hpp"

namespace vramfit::detail {

using nlohmann::json;

class FieldReader {
 public:
  FieldReader(const json& object, std::string path) : object_(object), path_(std::move(path)) {}

  bool has(std::string_view key) const {
    if (!object_.is_object()) return false;
    const auto it = object_.find(key);
    return it != object_.end() && !it->is_null();
  }
  const json* find(std::string_view key) const {
    if (!object_.is_object()) return nullptr;
    const auto it = object_.find(key);
    return (it == object_.end() || it->is_null()) ? nullptr : &*it;
  }

  // Missing or null: nullopt and no error. Present with the wrong type: nullopt and an error.
  std::optional<std::uint64_t> uint(std::string_view key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (v->is_number_unsigned()) return v->get<std::uint64_t>();
    if (v->is_number_integer() && v->get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v->get<std::int64_t>());
    if (v->is_number_float()) {
      const double d = v->get<double>();
      // Accept 4096.0, and 7e9 written as a float; reject fractions and huge values.
      if (d >= 0 && d <= 9.0e18 && d == static_cast<double>(static_cast<std::uint64_t>(d)))
        return static_cast<std::uint64_t>(d);
    }
    fail_message(key, message("json.expected_whole", "expected a whole number, 0 or more, got {got}", {got(*v)}));
    return std::nullopt;
  }
  std::optional<double> number(std::string_view key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (v->is_number()) return v->get<double>();
    fail_message(key, message("json.expected_number", "expected a number, got {got}", {got(*v)}));
    return std::nullopt;
  }
  std::optional<bool> boolean(std::string_view key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (v->is_boolean()) return v->get<bool>();
    fail_message(key, message("json.expected_boolean", "expected true or false, got {got}", {got(*v)}));
    return std::nullopt;
  }
  std::optional<std::string> string(std::string_view key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (v->is_string()) return v->get<std::string>();
    fail_message(key, message("json.expected_string", "expected a string, got {got}", {got(*v)}));
    return std::nullopt;
  }
  const json* array(std::string_view key) {
    const json* v = find(key);
    if (!v) return nullptr;
    if (v->is_array()) return v;
    fail_message(key, message("json.expected_array", "expected an array, got {got}", {got(*v)}));
    return nullptr;
  }
  const json* object(std::string_view key) {
    const json* v = find(key);
    if (!v) return nullptr;
    if (v->is_object()) return v;
    fail_message(key, message("json.expected_object", "expected an object, got {got}", {got(*v)}));
    return nullptr;
  }

  std::string path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  void fail_message(std::string_view key, Message message) {
    if (!error_) error_ = make_error(path(key), std::move(message));
  }
  const std::optional<Error>& error() const noexcept { return error_; }

  static std::string type_name(const json& v) {
    switch (v.type()) {
      case json::value_t::null: return "null";
      case json::value_t::boolean: return "a boolean";
      case json::value_t::string: {  // quoted, so a value a number field cannot show is still seen
        const auto& text = v.get_ref<const std::string&>();
        if (text.size() <= 40) return "the text \"" + text + "\"";
        std::size_t cut = 40;  // back to the start of a UTF-8 character, never inside one
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
        return "the text \"" + text.substr(0, cut) + "…\"";
      }
      case json::value_t::array: return "an array";
      case json::value_t::object: return "an object";
      case json::value_t::number_float: return "the number " + dump(v);
      case json::value_t::number_integer:
      case json::value_t::number_unsigned: return "the integer " + dump(v);
      default: return "a value of another type";
    }
  }
  // The value as the JSON shows it, for a message in any language; the English sentence says type_name.
  static std::string shown(const json& v) {
    switch (v.type()) {
      case json::value_t::string: {
        const std::string named = type_name(v);  // the text "…": keep the quoted part
        return named.substr(named.find('"'));
      }
      case json::value_t::array: return "[…]";
      case json::value_t::object: return "{…}";
      default: return dump(v);
    }
  }
  static MessageArg got(const json& v) { return arg::text("got", shown(v), type_name(v)); }

 private:
  const json& object_;
  std::string path_;
  std::optional<Error> error_;
};

// A request object may hold only these keys: the first other one, and the allowed ones as a list ("a, b, c"),
// for the caller's message.
struct UnknownKey {
  std::string key;
  std::string allowed;
};
inline std::optional<UnknownKey> unknown_key(const json& object, std::span<const std::string_view> known) {
  for (const auto& [key, value] : object.items()) {
    bool ok = false;
    for (auto k : known) ok = ok || k == key;
    if (ok) continue;
    std::string all;
    for (auto k : known) all += (all.empty() ? "" : ", ") + std::string(k);
    return UnknownKey{key, all};
  }
  return std::nullopt;
}

// A request's "config": a config.json object or its text (the page sends either).
inline std::string config_text(FieldReader& f) {
  const json* config = f.find("config");
  if (!config) return {};
  if (config->is_string()) return config->get<std::string>();
  if (config->is_object()) return dump(*config);
  f.fail_message("config", message("json.expected_config", "expected a config.json object or its text, got {got}",
                                    {FieldReader::got(*config)}));
  return {};
}

// text → DOM without exceptions; a discarded value when it is not JSON. Straight through nlohmann's SAX DOM
// builder: json::parse(…, nullptr, false) also compiles the callback-filtering builder and its std::function
// into the wasm, though no callback is ever passed.
inline json parse_dom(std::string_view text) {
  json out;
  nlohmann::detail::json_sax_dom_parser<json> builder(out, /*allow_exceptions_=*/false);
  if (!json::sax_parse(text.begin(), text.end(), &builder) || builder.is_errored()) return json(json::value_t::discarded);
  return out;
}

// Parses text without exceptions; the error names `field`.
inline Result<json> parse_json(std::string_view text, std::string field) {
  json parsed = parse_dom(text);
  if (parsed.is_discarded()) return make_error(std::move(field), message("json.invalid", "is not valid JSON"));
  return parsed;
}

}  // namespace vramfit::detail
