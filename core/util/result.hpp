#pragma once
// Errors are values: every fallible core function returns a Result naming the offending field.
#include <string>   // std::string
#include <utility>  // std::move
#include <variant>  // std::variant

#include "util/message.hpp"

namespace vramfit {

struct Error {
  std::string field;    // the input that is wrong, as the user spells it ("context", "config.hidden_size")
  Message message;      // what is wrong and what is allowed (English text, id and args for other languages)
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const Error& error() const& { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

inline Error make_error(std::string field, Message message) {
  return Error{std::move(field), std::move(message)};
}

}  // namespace vramfit
