#pragma once
// Import a Hugging Face config.json into a ModelSpec.
#include <string_view>  // std::string_view

#include "model/model_spec.hpp"
#include "util/result.hpp"

namespace vramfit {

// Reads the architecture from config.json text (a multimodal config's text_config is used for the
// language model). Unknown but Llama-shaped configs are imported with a note; architectures with
// state the core does not model (SSM, recurrent) are refused with a message saying so.
Result<ModelSpec> model_from_hf_config(std::string_view config_json);

}  // namespace vramfit
