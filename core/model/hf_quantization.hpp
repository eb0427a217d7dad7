#pragma once
// Internal: what a checkpoint's config says about how its weights are stored (quantization_config).
#include "model/model_spec.hpp"
#include "util/json_fields.hpp"  // FieldReader
#include "util/result.hpp"

namespace vramfit::detail {

// config.json's quantization_config (top level, or in text_config) → the spec's quantization, its recipe rules and
// notes for what is not modelled.
Result<bool> read_quantization(FieldReader& top, FieldReader& text, ModelSpec& s);

}  // namespace vramfit::detail
