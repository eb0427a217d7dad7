#pragma once
// Internal: bounds-checked little-endian reads over a file prefix. A read past the prefix but inside the
// file asks for a longer prefix; a read past the file is an error naming the field and its offset.
#include <algorithm>    // std::max, std::min
#include <cstddef>      // std::byte
#include <cstdint>      // std::uint64_t
#include <cstring>      // std::memcpy
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "util/result.hpp"

namespace vramfit::detail {

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
inline bool valid_utf8(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) { ++i; continue; }
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += len;
  }
  return true;
}

class BinaryReader {
 public:
  BinaryReader(std::span<const std::byte> prefix, std::uint64_t file_size) : data_(prefix), file_size_(file_size) {}

  std::uint64_t pos() const noexcept { return pos_; }
  std::uint64_t remaining_in_file() const noexcept { return file_size_ > pos_ ? file_size_ - pos_ : 0; }
  bool failed() const noexcept { return error_.has_value() || need_ != 0; }
  const std::optional<Error>& error() const noexcept { return error_; }
  std::uint64_t need() const noexcept { return need_; }

  // Makes sure `n` bytes at the current position exist; `field` names them for errors.
  bool require(std::uint64_t n, const std::string& field) {
    if (failed()) return false;
    if (n > remaining_in_file()) {
      fail(field, message("file.truncated", "needs {n} bytes but the file ends at {size} (truncated?)",
                          {arg::digits("n", n), arg::digits("size", file_size_)}));
      return false;
    }
    if (pos_ + n > data_.size()) {
      // Ask for at least twice what we have, so a long header takes few round trips.
      const std::uint64_t wanted = std::max<std::uint64_t>(pos_ + n, 2 * static_cast<std::uint64_t>(data_.size()));
      need_ = std::min<std::uint64_t>(std::max<std::uint64_t>(wanted, 4096), file_size_);
      return false;
    }
    return true;
  }
  template <class T>
  bool read(T& out, const std::string& field) {
    if (!require(sizeof(T), field)) return false;
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, data_.data() + pos_, sizeof(T));
    std::uint64_t v = 0;
    for (std::size_t i = sizeof(T); i-- > 0;) v = (v << 8) | bytes[i];  // little-endian, any host
    if constexpr (sizeof(T) == 8) std::memcpy(&out, &v, 8);
    else {
      const auto narrow = static_cast<std::uint32_t>(v);
      if constexpr (sizeof(T) == 4) std::memcpy(&out, &narrow, 4);
      else if constexpr (sizeof(T) == 2) {
        const auto n16 = static_cast<std::uint16_t>(v);
        std::memcpy(&out, &n16, 2);
      } else {
        const auto n8 = static_cast<std::uint8_t>(v);
        std::memcpy(&out, &n8, 1);
      }
    }
    pos_ += sizeof(T);
    return true;
  }
  bool read_bytes(std::string& out, std::uint64_t n, const std::string& field) {
    if (!require(n, field)) return false;
    out.assign(reinterpret_cast<const char*>(data_.data() + pos_), static_cast<std::size_t>(n));
    pos_ += n;
    return true;
  }
  bool skip(std::uint64_t n, const std::string& field) {
    if (!require(n, field)) return false;
    pos_ += n;
    return true;
  }
  void fail(const std::string& field, const Message& message) { fail_at(field, pos_, message); }
  // The English text names the offset; a client that says the message in its own language leaves it out.
  void fail_at(const std::string& field, std::uint64_t offset, const Message& message) {
    if (error_ || need_ != 0) return;
    Message located = message;
    located.text = "at offset " + std::to_string(offset) + ": " + message.text;
    error_ = make_error(field, std::move(located));
  }

 private:
  std::span<const std::byte> data_;
  std::uint64_t file_size_;
  std::uint64_t pos_ = 0;
  std::uint64_t need_ = 0;
  std::optional<Error> error_;
};

}  // namespace vramfit::detail
