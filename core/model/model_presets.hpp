#pragma once
// Model presets (data/models.json): official config.json fields plus published parameter counts.
#include <cstdint>      // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "model/model_spec.hpp"
#include "util/result.hpp"

namespace vramfit {

struct ModelPreset {
  ModelSpec spec;  // id, name and default_context filled from the preset
  std::string hf_repo;
  std::string config_source;
  std::uint64_t published_total = 0;   // 0 when no count is published
  std::uint64_t published_active = 0;  // MoE: parameters active per token
  std::string published_source;
};

Result<std::vector<ModelPreset>> parse_model_presets(std::string_view json_text);

// Matches an id ("llama-3.1-8b"), a name or an HF repo, case- and punctuation-insensitively.
const ModelPreset* find_model(const std::vector<ModelPreset>& presets, std::string_view id) noexcept;

}  // namespace vramfit
