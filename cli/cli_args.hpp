#pragma once
// Command-line flags → a core Request. Kept apart from main() so tests can drive it.
#include <string>  // std::string
#include <vector>  // std::vector

#include "vramfit/result.hpp"
#include "vramfit/scenario.hpp"
#include "vramfit/training_scenario.hpp"

namespace vramfit::cli {

enum class Action { estimate, help, version, list_models, list_gpus, limits, recommend, biggest, remedies };

struct Options {
  Action action = Action::estimate;
  Request request;
  bool json = false;
  std::string model_path;  // --model given a path (config.json, .gguf, .safetensors): main() reads it
  TrainingRequest training;                 // --mode train|lora|qlora and the training flags
  std::vector<std::string> training_flags;  // training flags given, to refuse them without a training --mode
  std::vector<std::string> seen;            // value flags given, to refuse one given twice
};

Result<Options> parse_args(const std::vector<std::string>& args);
std::string help_text();

// "7e9", "7000000000", "7B", "1.5T", "500M" → a count; nothing if malformed or not positive.
std::optional<std::uint64_t> parse_count(const std::string& text);
// "8192", "8k" (= 8192), "128K" → tokens.
std::optional<std::uint64_t> parse_tokens(const std::string& text);

}  // namespace vramfit::cli
