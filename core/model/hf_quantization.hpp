#pragma once
// What a checkpoint says about how its weights are stored: config.json's quantization_config and NVIDIA ModelOpt's
// hf_quant_config.json, read into the spec's format, its recipe rules and the KV-cache precision it was calibrated
// for. A quantization the core does not model is named in a note with what it is counted as, never silently bf16.
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "model/model_spec.hpp"
#include "util/json_fields.hpp"  // FieldReader
#include "util/result.hpp"

namespace vramfit {

// Reads an hf_quant_config.json's text over `spec` (imported from the config.json beside it): its quantization
// replaces the config's, except that a MIXED_PRECISION map keeps a base format the config gives (DeepSeek-V4's FP8).
Result<bool> apply_hf_quant_config(std::string_view quant_config_json, ModelSpec& spec);

// The checkpoint a config.json came from, by the name of its file, folder or repository: that name without a
// trailing "config.json" ("nvidia--GLM-5-NVFP4_config.json" → "nvidia--GLM-5-NVFP4"), and the format the name
// says as one word of it ("NVFP4", "FP8" or "FP4"; "" when none). NVIDIA's ModelOpt exports (nvidia/GLM-5-NVFP4,
// nvidia/Llama-3.1-70B-Instruct-FP8) keep that format in hf_quant_config.json, and many a config.json beside it
// names no quantization at all: the name is then the only sign of it in that file.
struct CheckpointName {
  std::string name;
  std::string format;
};
CheckpointName read_checkpoint_name(std::string_view name);

namespace detail {

// config.json's quantization_config (top level, or in text_config). `skip_modelopt`: an hf_quant_config.json comes
// too and says the same, so a ModelOpt quantization_config is left to it.
Result<bool> read_quantization(FieldReader& top, FieldReader& text, ModelSpec& s, bool skip_modelopt = false);

}  // namespace detail
}  // namespace vramfit
