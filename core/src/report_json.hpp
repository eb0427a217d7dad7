#pragma once
// Serialising helpers shared by the report writers (scenario.cpp, training_scenario.cpp, hardware_advice.cpp).
#include <optional>  // std::optional
#include <string>    // std::string

#include "json_fields.hpp"
#include "vramfit/inference.hpp"       // Explanation
#include "vramfit/model_spec.hpp"      // ModelSpec, ParamCounts
#include "vramfit/recommendation.hpp"  // Fit, Gpu
#include "vramfit/speed.hpp"       // Range

namespace vramfit::detail {

inline std::string dump(const json& j) {
  // Replace invalid UTF-8 (a model name typed into the CLI) instead of throwing.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

inline json range_json(const Range& r) { return json{{"low", r.low}, {"high", r.high}}; }

// null when absent: the page tests for null, never for a missing key.
template <typename T, typename F>
json or_null(const std::optional<T>& value, F&& to_json) {
  return value ? json(to_json(*value)) : json(nullptr);
}
inline json or_null(const std::optional<Range>& r) { return or_null(r, range_json); }
inline json or_null(const std::optional<double>& x) { return x ? json(*x) : json(nullptr); }
inline json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

// The "model" object every report carries (inference and training alike).
inline json model_json(const ModelSpec& m, const ParamCounts& params, std::uint64_t published_params) {
  json out = {
      {"id", m.id},
      {"name", m.name},
      {"architecture", m.architecture},
      {"params_total", params.total},
      {"params_active", params.active},
      {"published_params", published_params},
      {"layers", m.num_layers},
      {"hidden_size", m.hidden_size},
      {"attention_heads", m.num_attention_heads},
      {"kv_heads", m.num_kv_heads},
      {"head_dim", m.head_dim},
      {"sliding_window", m.sliding_window},
      {"max_context", m.max_context},
      {"default_context", m.default_context},
  };
  out["quantization"] = m.quantization;
  return out;
}

inline json explanations_json(const std::vector<Explanation>& explanations) {
  json out = json::array();
  for (const auto& x : explanations)
    out.push_back({{"key", x.key}, {"formula", x.formula}, {"values", x.values}, {"source", x.source}});
  return out;
}

// One GPU's verdict, as every report lists them.
inline json gpu_fit_json(const Gpu& gpu, Fit fit, std::int64_t free_bytes) {
  return {
      {"id", gpu.id},
      {"name", gpu.name},
      {"vendor", gpu.vendor},
      {"segment", gpu.segment},
      {"memory_bytes", gpu.memory_bytes},
      {"usable_bytes", gpu.usable_bytes()},
      {"fit", fit_name(fit)},
      {"free_bytes", free_bytes},
  };
}

}  // namespace vramfit::detail
