#pragma once
// --model given a name the catalog does not hold: a Hugging Face repository or an Ollama model, read over the
// network (the core says what to read; http_fetch reads it) and answered like a file the person holds.
#include <optional>  // std::optional
#include <string>  // std::string

#include "http_fetch.hpp"      // FetchSettings
#include "model_file.hpp"      // FileAnswer
#include "vramfit/vramfit.hpp"

namespace vramfit::cli {

struct LookupSettings {
  std::string hub_endpoint = "https://huggingface.co";  // HF_ENDPOINT
  std::string ollama_registry = "https://registry.ollama.ai";
  std::string revision;  // --revision
  FetchSettings fetch;
};

// The settings from the environment: HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE, HF_HUB_DOWNLOAD_TIMEOUT,
// XDG_CACHE_HOME (else ~/.cache) and VRAMFIT_OLLAMA_REGISTRY.
LookupSettings lookup_settings_from_environment();

// The answer to `request_json` about `name`: a preset as answer() gives it; a Hub or Ollama model from what was read,
// with a "lookup" object ({"source", "summary", "notes", "offline"}) added to the answer.
FileAnswer answer_about_name(const Catalog& catalog, const std::string& name, const std::string& request_json,
                             const LookupSettings& settings);

// What was read about a draft or another model (--draft, --also) named as --model names one: a Hub repository, an
// Ollama model or a path to a .gguf, .safetensors or config.json (or its folder), as the core's description of a model
// read (draft_read, also_read); "" for a preset or a name the core reads itself. Errors name `flag`.
FileAnswer describe_named_model(const Catalog& catalog, const std::string& name, const std::string& flag,
                                const LookupSettings& settings);

// The request with "draft_read" and "also_read" added for the draft and the other models that are no preset.
std::optional<Error> with_named_models(const Catalog& catalog, std::string& request_json,
                                       const LookupSettings& settings);

}  // namespace vramfit::cli
