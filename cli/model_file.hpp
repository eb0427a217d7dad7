#pragma once
// --model given a path: the file read here and handed to the core, a config.json as the request's "config", a
// .gguf or .safetensors file by its header alone (answer_file).
#include <optional>  // std::optional
#include <string>    // std::string
#include <string_view>  // std::string_view

#include "cli_args.hpp"  // Error
#include "vramfit/vramfit.hpp"

namespace vramfit::cli {

// The core's answer as JSON text, or the CLI's own error (naming --model) when the file cannot be read.
struct FileAnswer {
  std::string json;
  std::optional<Error> error;
  std::string quant_config_beside = {};  // an hf_quant_config.json found beside the config.json and read, or ""
};

// The answer to `request_json` about the model in the file at `path`: a config.json, a checkpoint folder (its
// config.json and, when present, its hf_quant_config.json), a .gguf or a .safetensors file. `quant_config_path`
// (--quant-config, may be empty) names an hf_quant_config.json to read with the config.json; without it the one
// beside the config.json is read when there is one (hf_quant_config.json beside config.json, NAME_hf_quant_config.json
// beside NAME_config.json). The request's "config_name" is the checkpoint's name as the path gives it.
FileAnswer answer_about_file(const Catalog& catalog, const std::string& path, const std::string& request_json,
                             const std::string& quant_config_path = {});

// RFC 4648 base64, as the core reads a model file's header sent in a request (draft_read, also_read).
std::string base64(std::string_view bytes);

// A path to a .gguf or .safetensors file; a path to a config.json or a folder.
bool is_model_path(const std::string& path);
bool is_config_path(const std::string& path);

// A model file, config.json or checkpoint folder named for a draft or another model (--draft, --also), as the core's
// description of a model read (json/model_read.hpp): its name, its config.json (with the hf_quant_config.json beside
// it), its header whole. Errors name `flag`.
FileAnswer describe_model_file(const Catalog& catalog, const std::string& path, const std::string& flag);

// --draft PATH: the request with "draft_config" set to that config.json's text (a folder: its config.json) in place
// of "draft"; the request unchanged otherwise (a preset, "mtp", a name or model file with_named_models reads). An
// error (naming --draft) for a config.json it cannot read.
FileAnswer with_draft_file(const std::string& request_json);

}  // namespace vramfit::cli
