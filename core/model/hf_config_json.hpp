#pragma once
// Internal: the config importer on an already parsed object (the preset catalog embeds configs).
#include <string>  // std::string

#include "util/json_fields.hpp"
#include "model/model_spec.hpp"

namespace vramfit::detail {
Result<ModelSpec> model_from_config_object(const json& config, const std::string& path);
}
