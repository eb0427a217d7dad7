// The catalog for a page's pickers: presets, GPUs, the weight formats by storage scheme, and the request's inputs
// (json/inputs.hpp) with their URL keys, kinds, ranges and allowed values, so a page offers what the core accepts.
#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "formats/dtype.hpp"           // all_dtypes
#include "formats/weight_formats.hpp"  // weight_format_examples, parse_weight_format
#include "json/inputs.hpp"             // inputs, allowed_values
#include "json/report_json.hpp"        // write_gpu_fields
#include "json/report_writer.hpp"
#include "memory/engines/engine.hpp"    // engine_version_choices, engine_name
#include "memory/kv_cache.hpp"  // all_kv_dtypes

namespace vramfit {

using detail::JsonWriter;

namespace {

std::string_view scheme_name(WeightScheme scheme) {
  switch (scheme) {
    case WeightScheme::plain: return "plain";
    case WeightScheme::mixed: return "mixed";
    case WeightScheme::bnb_nf4: return "bnb_nf4";
    case WeightScheme::bnb_int8: return "bnb_int8";
    case WeightScheme::gptq: return "gptq";
    case WeightScheme::awq: return "awq";
    case WeightScheme::gguf: return "gguf";
    case WeightScheme::mxfp4: return "mxfp4";
    case WeightScheme::mxfp8: return "mxfp8";
    case WeightScheme::nvfp4: return "nvfp4";
    case WeightScheme::fp8_channel: return "fp8_channel";
    case WeightScheme::fp8_block: return "fp8_block";
    case WeightScheme::fp8_block_e8m0: return "fp8_block_e8m0";
    case WeightScheme::compressed: return "compressed";
    case WeightScheme::mlx: return "mlx";
    case WeightScheme::exl2: return "exl2";
    case WeightScheme::exl3: return "exl3";
    case WeightScheme::autoround: return "autoround";
  }
  return "";
}

std::string_view kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::text: return "text";
    case InputKind::config: return "config";
    case InputKind::choice: return "choice";
    case InputKind::count: return "count";
    case InputKind::tokens: return "tokens";
    case InputKind::quantity: return "quantity";
    case InputKind::number: return "number";
    case InputKind::fraction: return "fraction";
    case InputKind::toggle: return "toggle";
    case InputKind::size: return "size";
    case InputKind::list: return "list";
  }
  return "";
}

std::string_view use_name(InputUse use) {
  // gpus: inference's count, and the ranking's list (the ranking reads the inference inputs as well)
  if (use == (InputUse::inference | InputUse::gpu_ranking)) return "inference";
  switch (use) {
    case InputUse::inference: return "inference";
    case InputUse::training: return "training";
    case InputUse::both: return "both";
    case InputUse::gpu_ranking: return "gpu_ranking";
    case InputUse::any: return "any";
  }
  return "";
}

bool is_numeric(InputKind kind) {
  return kind == InputKind::count || kind == InputKind::tokens || kind == InputKind::quantity ||
         kind == InputKind::number || kind == InputKind::fraction;
}

// "a, b, c" (allowed_values' form for messages) as a JSON array.
void write_values(JsonWriter& w, const std::string& names) {
  w.begin_array("values");
  for (std::size_t at = 0; at < names.size();) {
    const std::size_t end = names.find(", ", at);
    w.value(std::string_view(names).substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? names.size() : end + 2;
  }
  w.end_array();
}

// engine_version's choices besides each engine's default: {"vllm": ["0.21"], "ollama": ["0.31.1", "0.30.10", …], …}.
void write_versions(JsonWriter& w) {
  w.begin_object("versions");
  const auto choices = engine_version_choices();
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i > 0 && choices[i].engine == choices[i - 1].engine) continue;
    w.begin_array(std::string(engine_name(choices[i].engine)).c_str());
    for (const auto& c : choices)
      if (c.engine == choices[i].engine) w.value(c.version);
    w.end_array();
  }
  w.end_object();
}

// Each input: its request key, URL key ("" without a control on the page), kind, which requests and engines read it,
// and its range or its allowed values.
void write_inputs(JsonWriter& w) {
  w.begin_array("inputs");
  for (const Input& input : inputs()) {
    w.begin_object();
    w.field("key", input.key);
    w.field("kind", kind_name(input.kind));
    if (is_numeric(input.kind) || input.kind == InputKind::size) {  // a size's range is in GB
      w.field("above_min", input.above_min);
      w.field("max", input.max);  // null when unbounded
      w.field("min", input.min);
    }
    w.field("url", input.url);
    w.field("use", use_name(input.use));
    if (input.engines != Engines::all) {  // the engines that read it; given with another it is refused
      w.begin_array("engines");
      for (const EngineTraits& t : kEngineTable)
        if (read_by_engine(input, static_cast<unsigned>(t.engine))) w.value(t.name);
      w.end_array();
    }
    if (input.kind == InputKind::choice) write_values(w, allowed_values(input));
    if (input.key == "engine_version") write_versions(w);
    w.end_object();
  }
  w.end_array();
}

void write_weight_formats(JsonWriter& w) {
  w.begin_array("weight_formats");
  for (const std::string& name : weight_format_examples()) {
    const auto format = parse_weight_format(name);
    w.begin_object();
    w.field("name", name);
    w.field("scheme", format ? scheme_name(format.value().scheme) : "");
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string catalog_to_json(const Catalog& catalog) {
  JsonWriter w;
  w.begin_object();
  w.begin_array("dtypes");
  for (const auto& d : all_dtypes()) {
    w.begin_object();
    w.field("bits", d.bits);
    w.field("name", d.name);
    w.field("summary", d.summary);
    w.end_object();
  }
  w.end_array();
  w.begin_array("gpus");
  for (const auto& g : catalog.gpus) {
    w.begin_object();
    detail::write_gpu_fields(w, g);
    w.end_object();
  }
  w.end_array();
  write_inputs(w);
  w.begin_array("kv_dtypes");
  for (const auto& d : all_kv_dtypes()) {
    w.begin_object();
    w.field("bits", 8.0 * d.block_bytes / d.block_elements);
    w.field("name", d.name);
    w.field("summary", d.summary);
    w.end_object();
  }
  w.end_array();
  w.begin_array("models");
  for (const auto& p : catalog.models) {
    w.begin_object();
    w.field("default_context", p.default_context);
    w.field("hf_repo", p.hf_repo);
    w.field("id", p.id);
    w.field("name", p.name);
    w.begin_array("ollama");  // the page's type-ahead finds a preset by these tags too
    for (const auto& tag : p.ollama) w.value(tag.tag);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  write_weight_formats(w);
  w.end_object();
  return w.take();
}

}  // namespace vramfit
