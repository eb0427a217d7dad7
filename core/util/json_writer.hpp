#pragma once
// Streaming JSON output for the reports. An nlohmann::json DOM built only to be dumped makes every report
// writer a large share of the wasm (initializer lists, std::map nodes, json_ref temporaries); here a field is
// one out-of-line call that appends to one string. Parsing stays with nlohmann.
//
// The text is nlohmann's dump(-1, ' ', false, error_handler_t::replace) of the same document: integers as
// integers, doubles by nlohmann's own to_chars (grisu2, "1.0" for integral values), non-finite doubles as
// null, invalid UTF-8 replaced by U+FFFD, and an object's members in byte order of their keys (nlohmann's
// std::map order). Writers give the members in whatever order reads best: end_object() sorts them. The unit
// tests check every report against its nlohmann round trip.
#include <nlohmann/json_fwd.hpp>

#include <cstddef>           // std::size_t
#include <cstdint>           // std::uint64_t, std::int64_t
#include <initializer_list>  // std::initializer_list
#include <optional>          // std::optional
#include <string>            // std::string
#include <string_view>       // std::string_view
#include <type_traits>       // std::is_same_v, std::is_integral_v, ...
#include <vector>            // std::vector

#include "util/message.hpp"

namespace vramfit::detail {

template <class T>
inline constexpr bool kIsOptional = false;
template <class T>
inline constexpr bool kIsOptional<std::optional<T>> = true;
template <class T>
inline constexpr bool kIsVector = false;
template <class T>
inline constexpr bool kIsVector<std::vector<T>> = true;

class JsonWriter {
 public:
  // Inside an object every member names its key (a literal: a pointer is one argument less per field than
  // a string_view); inside an array, or at the top, the key is nullptr.
  void begin_object(const char* key = nullptr) { open(key, '{'); }
  void end_object() { close('}'); }  // the members, sorted by key
  void begin_array(const char* key = nullptr) { open(key, '['); }
  void end_array() { close(']'); }

  // bool, integers, floating point, strings, nullptr, std::optional (null when empty), std::vector (array).
  template <class T>
  void field(const char* key, const T& value) {
    put(key, value);
  }
  void field(const char* key, std::initializer_list<std::string_view> strings);  // {"a", "b"}: an array
  template <class T>
  void value(const T& v) {
    put(nullptr, v);
  }
  // A text for people, one key: {"id": "vllm.kv_short", "args": {"tokens": 4096}, "text": "the English"};
  // for a list, an array of those. A clause inside it (arg::message) is one of these too, with its English, which a
  // client without that id's template shows.
  void message_id(const char* key, const Message& m);
  void message_ids(const char* key, const std::vector<Message>& ms);
  // Any parsed value (a request passed on, a number quoted in a message), keys in nlohmann's order.
  void dom(const nlohmann::json& value);

  std::string take() noexcept { return std::move(out_); }

 private:
  template <class T>
  void put(const char* key, const T& v) {
    if constexpr (std::is_same_v<T, bool>) put_bool(key, v);
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) put_int(key, v);
    else if constexpr (std::is_integral_v<T>) put_uint(key, v);
    else if constexpr (std::is_floating_point_v<T>) put_double(key, static_cast<double>(v));
    else if constexpr (std::is_same_v<T, std::nullptr_t>) put_null(key);
    else if constexpr (std::is_convertible_v<const T&, std::string_view>) put_string(key, v);
    else if constexpr (kIsOptional<T>) {
      if (v) put(key, *v);
      else put_null(key);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) put_strings(key, v);
    else if constexpr (std::is_same_v<T, std::vector<std::uint64_t>>) put_uints(key, v);
    else if constexpr (kIsVector<T>) {
      open(key, '[');
      for (const auto& x : v) put(nullptr, x);
      close(']');
    } else static_assert(!sizeof(T), "JsonWriter: no JSON form for this type");
  }

  void open(const char* key, char bracket);
  void close(char bracket);
  void put_bool(const char* key, bool v);
  void put_int(const char* key, std::int64_t v);
  void put_uint(const char* key, std::uint64_t v);
  void put_double(const char* key, double v);
  void put_null(const char* key);
  void put_string(const char* key, std::string_view v);
  void put_strings(const char* key, const std::vector<std::string>& v);
  void put_uints(const char* key, const std::vector<std::uint64_t>& v);
  void prefix(const char* key);  // the comma before a sibling, then `"key":` inside an object
  void quoted(std::string_view s);
  void sort_members(std::size_t first);  // the innermost object's members, from members_[first]

  // A member of an open object: its key (keys_[key_at, key_at + key_size)) and where its text starts in out_
  // (just after the comma before it).
  struct Member {
    std::size_t key_at, key_size, begin;
  };
  static constexpr std::size_t kArray = ~std::size_t{0};

  std::string out_;
  bool first_ = true;               // no sibling written yet in the innermost open container
  std::vector<std::size_t> open_;   // per open container, outermost first: its first member, or kArray
  std::vector<Member> members_;     // the members of every open object, innermost object's last
  std::string keys_;                // their keys, unescaped, as nlohmann compares them
  std::vector<std::size_t> order_;  // sort_members' scratch, kept so an object costs no allocation
  std::string reorder_;
};

// A parsed value as text, as dom() writes it.
std::string dump(const nlohmann::json& value);

}  // namespace vramfit::detail
