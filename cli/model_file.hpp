#pragma once
// --model given a path: the file read here and handed to the core, a config.json as the request's "config", a
// .gguf or .safetensors file by its header alone (answer_file).
#include <optional>  // std::optional
#include <string>    // std::string

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

// --draft PATH: the request with "draft_config" set to that config.json's text (a folder: its config.json) in place
// of "draft"; the request unchanged when --draft names a preset or "mtp". An error (naming --draft) for a file it
// cannot read, and for a .gguf draft, whose header is not read yet.
FileAnswer with_draft_file(const std::string& request_json);

}  // namespace vramfit::cli
