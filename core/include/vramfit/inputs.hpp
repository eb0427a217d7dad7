#pragma once
// The request's inputs, once: each key with its CLI flag, its URL key on the page, what kind of value it takes and
// its range. The request parser validates by it, the CLI translates flags into request keys by it, and the page
// reads it from the catalog for its URL keys, so one input has one name in each place and one error message.
#include <span>         // std::span
#include <string_view>  // std::string_view

namespace vramfit {

// What a value may be. A request gives each as a JSON value or as the text a user typed (the CLI sends text).
enum class InputKind {
  text,      // free text: a preset id, a GPU name, a weight format the weight-format table resolves
  config,    // a config.json: a JSON object or its text
  choice,    // one of allowed_values, or an alias its parser knows ("llama.cpp"); a JSON number gives its digits
  count,     // a whole number in [min, max]; text: digits only
  tokens,    // a whole number of tokens in [min, max]; text may say 8k or 1.5M (k = 1024, M = 1024²)
  quantity,  // a whole number in [min, max]; text may say 7B, 300B or 1e9 (k, M, B, T: powers of ten)
  number,    // a finite number in [min, max]
  fraction,  // a number in [min, max]; text may be a percentage: "40%" = 0.4
  toggle,    // true or false; text may say on/off, yes/no, 1/0
  size,      // a card's memory in GB from min to max, as bytes (a card's GB are GiB); text may say 48GB, 24 GiB, 48
  list,      // GPU ids: an array of texts or one comma-separated text
};

// Which questions read an input: a key outside them is refused rather than ignored. Questions combine them: the
// GPU ranking reads the inference inputs and its own.
enum class InputUse : unsigned { inference = 1, training = 2, both = 3, gpu_ranking = 4, any = 7 };
constexpr InputUse operator|(InputUse a, InputUse b) noexcept {
  return static_cast<InputUse>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

// Which engines read an input of an inference question: one bit per engine, in the order the engine input lists
// them (transformers, vllm, llamacpp, sglang, ollama, mlx); `all` for an input every engine reads. Given with an
// engine that does not read it, the input is refused with the engines that do, rather than ignored.
enum class Engines : unsigned { all = 0, transformers = 1, vllm = 2, llamacpp = 4, sglang = 8, ollama = 16, mlx = 32 };
constexpr Engines operator|(Engines a, Engines b) noexcept {
  return static_cast<Engines>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

struct Input {
  std::string_view key;         // the request's JSON key
  std::string_view flag;        // the CLI's flag ("" where the CLI has none: it reads config.json files by --model)
  std::string_view url;         // the page's URL key ("" where the page has no control for it)
  InputKind kind;
  double min = 0;               // numeric kinds: the allowed range, inclusive unless above_min
  double max = 0;
  std::string_view value_name;  // the CLI help's placeholder; "" for a toggle the flag alone sets
  std::string_view help;        // the CLI help's line
  InputUse use = InputUse::both;
  bool above_min = false;       // the range excludes min: "above 0"
  Engines engines = Engines::all;
};

std::span<const Input> inputs() noexcept;
// "gpus" is a job's GPU count in training and a list of GPU ids for the GPU ranking: `use` tells them apart.
const Input* input_by_key(std::string_view key, InputUse use = InputUse::any) noexcept;
const Input* input_by_flag(std::string_view flag) noexcept;
bool used_by(const Input& input, InputUse use) noexcept;
// Whether the engine at `engine_index` in the engine input's order reads `input`.
bool read_by_engine(const Input& input, unsigned engine_index) noexcept;

}  // namespace vramfit
