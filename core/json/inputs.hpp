// The request's inputs, once: each key with its CLI flag, its URL key on the page, what kind of value it takes and
// its range. The request parser validates by it, the CLI translates flags into request keys by it, and the page
// reads it from the catalog for its URL keys, so one input has one name in each place and one error message.
#pragma once

#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

namespace vramfit {

enum class InputKind {
  text,      // free text: a preset id, a GPU name, a weight format the weight-format table resolves
  choice,    // one of a fixed list (allowed_values)
  count,     // a whole number in [min, max]
  tokens,    // a whole number of tokens in [min, max]; text may say 8k or 1.5M
  quantity,  // a whole number in [min, max]; text may say 7B, 300B or 1e9
  number,    // a finite number in [min, max]
  toggle,    // true or false; text may say on/off, yes/no, 1/0
  list,      // GPU ids: an array or one comma-separated text
};

// Which questions read an input: a key outside them is refused rather than ignored.
enum class InputUse : unsigned { inference = 1, training = 2, both = 3 };

struct Input {
  std::string_view key;         // the request's JSON key
  std::string_view flag;        // the CLI's flag
  std::string_view url;         // the page's URL key ("" where the page has no control for it)
  InputKind kind;
  double min = 0;               // numeric kinds: the allowed range, inclusive
  double max = 0;
  std::string_view value_name;  // the CLI help's placeholder
  std::string_view help;        // the CLI help's line
  InputUse use = InputUse::both;
};

std::span<const Input> inputs() noexcept;
// "gpus" is a job's GPU count in training and a list of GPU ids for the GPU ranking: `use` tells them apart.
const Input* input_by_key(std::string_view key, InputUse use = InputUse::both) noexcept;
const Input* input_by_flag(std::string_view flag) noexcept;
bool used_by(const Input& input, InputUse use) noexcept;

// A choice input's allowed values, comma-separated, from the parsers that read them ("" for other kinds).
std::string allowed_values(const Input& input);

}  // namespace vramfit
