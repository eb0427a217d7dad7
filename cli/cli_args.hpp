#pragma once
// Command-line flags → a core Request. Kept apart from main() so tests can drive it.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "util/quantity.hpp"
#include "util/result.hpp"
#include "questions/evaluate.hpp"
#include "questions/evaluate_training.hpp"

namespace vramfit::cli {

enum class Action { estimate, help, version, list_models, list_gpus, limits, gpu_ranking, biggest, remedies };

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

// The core's readers of written counts ("7B", "300B", "8k"), which the flags share with the page.
using vramfit::parse_count;
using vramfit::parse_tokens;

// Digits only, at least `lo`: "8", not "8k" or "2.5" (counts of GPUs, layers, sequences).
std::optional<std::uint64_t> whole_number(std::string_view value, std::uint64_t lo);

}  // namespace vramfit::cli
