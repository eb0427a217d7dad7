#pragma once
// Model presets (data/models.json): official config.json fields plus published parameter counts.
#include <cstdint>      // std::uint64_t
#include <memory>       // std::shared_ptr
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "model/model_spec.hpp"
#include "util/result.hpp"

namespace vramfit {

// A preset's model, read from its config.json the first time a question uses it: opening the catalog reads only
// what the pickers list (reading every preset's config at start delayed the page's first answer by half a second).
// Copies share what was read.
class PresetModel {
 public:
  PresetModel() : PresetModel(std::string_view(), "config", "", "", 0) {}  // reads as an error: an empty config
  // `path` names the config in an error ("models[3].config"); id, name and default_context come from the preset.
  // The text is kept as a copy, or only viewed when `config_json` lives as long as the program (the compiled-in
  // catalog's).
  PresetModel(std::string config_json, std::string path, std::string id, std::string name,
              std::uint64_t default_context);
  PresetModel(std::string_view static_config_json, std::string path, std::string id, std::string name,
              std::uint64_t default_context);
  // The config's ModelSpec with the preset's id, name and default_context, or why the config cannot be read.
  const Result<ModelSpec>& get() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// An Ollama library tag of a preset's model, and the GGUF file type that tag ships where a page says it.
struct OllamaTag {
  std::string tag;     // "qwen3:30b-a3b"; a bare library name ("glm-4.7-flash") is its tag latest
  std::string quant;   // "Q4_K_M"; "" where no source says which file type the tag ships
  std::string source;  // where `quant` is published
};

struct ModelPreset {
  std::string id;
  std::string name;
  std::uint64_t default_context = 0;  // 0: the engine's default
  PresetModel model;
  std::string hf_repo;
  std::vector<OllamaTag> ollama;  // Ollama library tags of the same model ("qwen3:30b-a3b")
  std::string config_source;
  std::uint64_t published_total = 0;   // 0 when no count is published
  std::uint64_t published_active = 0;  // MoE: parameters active per token
  // A headline like "1T" or "17B" is rounded to a whole unit: the true count lies within half of it.
  std::uint64_t published_total_rounded_to = 0;  // 0: the figure is given to enough digits
  std::uint64_t published_active_rounded_to = 0;
  std::string published_source;
};

// A preset's "config" is the config.json object, or the index of its text in `configs` (the compiled-in catalog
// keeps each config as a text of its own: vramfit/builtin_data.hpp), which must then outlive the presets.
Result<std::vector<ModelPreset>> parse_model_presets(std::string_view json_text,
                                                     std::span<const std::string_view> configs = {});

// Matches an id ("llama-3.1-8b"), a name, an HF repo ("Qwen/Qwen3-30B-A3B") or an Ollama tag ("qwen3:30b-a3b"),
// case- and punctuation-insensitively.
const ModelPreset* find_model(const std::vector<ModelPreset>& presets, std::string_view id) noexcept;

// A model as people write it: what find_model takes, a Hugging Face id of a variant with the same architecture
// ("meta-llama/Llama-3.1-70B-Instruct" → llama-3.1-70b), or a part of a name only one preset has. `note` says how
// a name that is not a preset's own was read; refused (field "model") with the presets it could mean or the
// closest ones, and how to use a model without a preset.
struct ModelLookup {
  const ModelPreset* preset = nullptr;
  Message note;  // a sentence, with its full stop
  // The preset's Ollama tag the text names in Ollama's form ("llama3.1:8b", or "llama3.3" for its tag latest);
  // none for its id, name or repository, which name the model rather than what Ollama runs.
  const OllamaTag* ollama = nullptr;
};
Result<ModelLookup> resolve_model(const std::vector<ModelPreset>& presets, std::string_view text);

}  // namespace vramfit
