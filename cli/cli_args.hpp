#pragma once
// Command-line flags → a request, as the page sends one: each input flag becomes its request key (json/inputs.hpp)
// with the value as typed, and the core parses and checks it. Kept apart from main() so tests can drive it.
#include <string>  // std::string
#include <vector>  // std::vector

#include "util/result.hpp"

namespace vramfit::cli {

// What the command line asks: a question of the core (the request's "question") or one of the CLI's own answers.
enum class Action { answer, help, version, list_models, list_gpus };

struct Options {
  Action action = Action::answer;
  bool json = false;
  // The request JSON: {"key": "value as typed", ...}; a flag given alone (--sp) is true; "question" from
  // --rank-gpus, --biggest, --remedies or --max-context.
  std::string request = "{}";
  std::string model_path;     // --model given a path (config.json, .gguf, .safetensors): main() reads it
  std::string question_flag;  // the flag that chose the question, to name it in the question's errors
};

Result<Options> parse_args(const std::vector<std::string>& args);
std::string help_text();

// The core names a request key; the user typed a flag: "gpu_layers" → "--ngl", "question" → the question's flag.
// Other fields (a config.json's "config.hidden_size") stay as they are.
Error with_flag_name(Error error, const Options& options);

}  // namespace vramfit::cli
