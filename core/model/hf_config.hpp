#pragma once
// Import a Hugging Face config.json into a ModelSpec.
#include <string_view>  // std::string_view

#include "model/model_spec.hpp"
#include "util/result.hpp"

namespace vramfit {

// Reads the architecture from config.json text (a multimodal config's text_config is used for the
// language model). Unknown but Llama-shaped configs are imported with a note; architectures with
// state the core does not model (SSM, recurrent) are refused with a message saying so. `quant_config_json`: an
// NVIDIA ModelOpt hf_quant_config.json from beside it (may be empty), whose quantization replaces the config's.
Result<ModelSpec> model_from_hf_config(std::string_view config_json, std::string_view quant_config_json = {});

}  // namespace vramfit
