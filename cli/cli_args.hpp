#pragma once
// Command-line flags → a request, as the page sends one: each input flag becomes its request key (vramfit/inputs.hpp)
// with the value as typed, and the core parses and checks it. Kept apart from main() so tests can drive it.
#include <optional>  // std::optional
#include <string>    // std::string
#include <string_view>  // std::string_view
#include <vector>    // std::vector

namespace vramfit::cli {

// What is wrong, as every answer's "error" says it: the field (a flag, once with_flag_name named it) and what it
// allows.
struct Error {
  std::string field;
  std::string message;
};

// What the command line asks: a question of the core (the request's "question") or one of the CLI's own answers.
enum class Action { answer, help, version, list_models, list_gpus };

struct Options {
  Action action = Action::answer;
  bool json = false;
  bool command = false;  // --command: print only the engine's command line
  bool check = false;    // --check: the verdict in one line, and the exit status says whether it runs on the GPU
  // The request JSON: {"key": "value as typed", ...}; a flag given alone (--sp) is true; "question" from
  // --rank-gpus, --biggest, --remedies or --max-context.
  std::string request = "{}";
  std::string model_path;     // --model given a path (config.json, its folder, .gguf, .safetensors): main() reads it
  std::string quant_config_path;  // --quant-config: an hf_quant_config.json read with --model's config.json
  bool offline = false;       // --offline: a model looked up before, from the cache (as HF_HUB_OFFLINE=1)
  std::string revision;       // --revision: the Hub branch, tag or commit to read
  std::string question;       // the request's "question"; "" asks the estimate
  std::string question_flag;  // the flag that chose the question, to name it in the question's errors
};

// The options, or the first flag that is wrong.
struct ParsedArgs {
  Options options;
  std::optional<Error> error;
};

// Whether a --model value names a file to read (a config.json, its checkpoint folder, a .gguf or .safetensors)
// rather than a model by name (a preset, a Hub repository or link, an Ollama model). "Qwen/Qwen3-30B-A3B" reads
// like a path: with no such file, and no file's ending or leading . or /, it is a name; "phi4" is a name even where
// a folder has it.
bool names_a_file(std::string_view value);

ParsedArgs parse_args(const std::vector<std::string>& args);
std::string help_text();

// The core names a request key; the user typed a flag: "gpu_layers" → "--ngl", "question" → the question's flag,
// "file" (the model file's header) → "--model". Other fields (a config.json's "config.hidden_size") stay.
Error with_flag_name(Error error, const Options& options);

}  // namespace vramfit::cli
