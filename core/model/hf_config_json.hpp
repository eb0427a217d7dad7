#pragma once
// Internal: the config importer on an already parsed object (the preset catalog embeds configs).
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "util/json_fields.hpp"
#include "model/model_spec.hpp"

namespace vramfit::detail {
// `quant_config_apart`: an hf_quant_config.json comes beside it and describes the ModelOpt quantization.
Result<ModelSpec> model_from_config_object(const json& config, const std::string& path, bool quant_config_apart = false);

// Python's json module writes Infinity, -Infinity and NaN, which JSON has no word for (Nemotron-H's
// time_step_limit): outside strings they become null, as no field vramfit reads holds them.
std::string python_json_as_json(std::string_view text);
}
