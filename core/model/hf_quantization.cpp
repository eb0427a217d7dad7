#include "model/hf_quantization.hpp"

#include <algorithm>    // std::find_if, std::max_element
#include <cstdint>      // std::uint64_t
#include <map>          // std::map
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "model/hf_config_json.hpp"  // python_json_as_json
#include "util/text.hpp"              // lower_ascii

namespace vramfit {
namespace detail {
namespace {

std::string upper_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

// Norms, biases and the Mamba / DeltaNet scalars stay 16-bit in every format: naming them moves nothing.
bool stays_16bit_anyway(std::string_view module) {
  const auto dot = module.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? module : module.substr(dot + 1);
  return last.find("norm") != std::string_view::npos || last.find("bias") != std::string_view::npos ||
         last == "A_log" || last == "D" || last == "dt_bias" || last == "sinks";
}

// Multi-token-prediction modules, named apart from the decoder's layers (Qwen3.5's "mtp.*").
bool is_mtp(std::string_view module) {
  return module.starts_with("mtp") || module.find(".mtp") != std::string_view::npos ||
         module.find("nextn") != std::string_view::npos;
}

// compressed-tensors' "re:" patterns as the module names they match: ".*" and anchors dropped, "\." a dot, one
// "(a|b)" alternation expanded ("re:.*mlp\.(gate|up)_proj.*" → "mlp.gate_proj", "mlp.up_proj"); a fused gate_up
// projection is the core's gate and up. Other entries are names or fnmatch globs already.
std::vector<std::string> module_names(std::string_view entry) {
  std::string name;
  if (entry.starts_with("re:")) {  // re.match on the full name: a glob that may sit anywhere
    entry.remove_prefix(3);
    name = "*";
    for (std::size_t i = 0; i < entry.size(); ++i) {
      if (entry.substr(i, 2) == ".*") ++i;
      else if (entry[i] == '\\' && i + 1 < entry.size()) name += entry[++i];
      else if (entry[i] != '^' && entry[i] != '$') name += entry[i];
    }
  } else {
    name = std::string(entry);
  }
  std::vector<std::string> out;
  const auto open = name.find('('), close = name.find(')');
  if (open != std::string::npos && close != std::string::npos && open < close) {
    std::string_view options = std::string_view(name).substr(open + 1, close - open - 1);
    while (true) {
      const auto bar = options.find('|');
      out.push_back(name.substr(0, open) + std::string(options.substr(0, bar)) + name.substr(close + 1));
      if (bar == std::string_view::npos) break;
      options.remove_prefix(bar + 1);
    }
  } else {
    out.push_back(std::move(name));
  }
  for (std::size_t i = 0, n = out.size(); i < n; ++i)
    if (const auto at = out[i].find("gate_up_proj"); at != std::string::npos) {
      out.push_back(out[i].substr(0, at) + "up_proj" + out[i].substr(at + 12));
      out[i] = out[i].substr(0, at) + "gate_proj" + out[i].substr(at + 12);
    }
  return out;
}

// Collects a recipe's rules, one per distinct selector (ModelOpt lists every expert of every layer), and the
// modules the core has no tensor for, named in one note.
class RecipeBuilder {
 public:
  RecipeBuilder(ModelSpec& s, std::string where) : s_(s), where_(std::move(where)) {}
  void add(std::string_view entry, const std::string& format) {
    if (is_mtp(entry)) return add_mtp(entry, format);
    if (stays_16bit_anyway(entry)) return;
    for (const auto& module : module_names(entry)) {
      auto rule = rule_for_module(module, format, s_.architecture);
      if (!rule) {
        if (unmatched_count_++ < 6) unmatched_ += (unmatched_.empty() ? "" : ", ") + std::string(entry);
        continue;
      }
      const auto same = [&](const TensorFormatRule& r) {
        return r.layer == rule->layer && r.tensors == rule->tensors && r.format == rule->format;
      };
      if (std::find_if(rules_.begin(), rules_.end(), same) == rules_.end()) rules_.push_back(std::move(*rule));
    }
  }
  // "mtp*", "mtp.layers.0*": whole multi-token-prediction layers, the blocks after the decoder's (mtp_tensors); a
  // single MTP module is left to the format of the layer it sits in.
  void add_mtp(std::string_view entry, const std::string& format) {
    if (!entry.ends_with('*')) return;
    const auto first = static_cast<std::int64_t>(s_.num_layers());
    for (std::uint64_t k = 0; k < s_.mtp.layers; ++k) {
      const auto layer = first + static_cast<std::int64_t>(k);
      const auto same = [&](const TensorFormatRule& r) { return r.layer == layer && r.tensors.empty(); };
      if (std::find_if(rules_.begin(), rules_.end(), same) == rules_.end())
        rules_.push_back({std::string(entry), layer, "", format});
    }
  }
  // The rules ahead of the spec's own (the first rule covering a tensor decides).
  void finish() {
    s_.quantization_rules.insert(s_.quantization_rules.begin(), rules_.begin(), rules_.end());
    if (unmatched_count_ == 0) return;
    if (unmatched_count_ > 6)
      s_.notes.push_back(message("quant.unmatched_more",
                                 "{where}: no tensor vramfit counts is named {names} and {more} more; nothing is moved "
                                 "for them.",
                                 {arg::text("where", where_), arg::text("names", unmatched_),
                                  arg::digits("more", unmatched_count_ - 6)}));
    else
      s_.notes.push_back(message("quant.unmatched",
                                 "{where}: no tensor vramfit counts is named {names}; nothing is moved for them.",
                                 {arg::text("where", where_), arg::text("names", unmatched_)}));
  }

 private:
  ModelSpec& s_;
  std::string where_;
  std::vector<TensorFormatRule> rules_;
  std::string unmatched_;
  std::size_t unmatched_count_ = 0;
};

// A list of module names or patterns under `key`, stored in `format`.
Result<bool> read_module_list(FieldReader& f, std::string_view key, const std::string& format, ModelSpec& s) {
  const json* list = f.find(key);
  if (!list) return true;
  if (!list->is_array()) return make_error(f.path(key), message("quant.module_list", "must be a list of module names"));
  RecipeBuilder recipe(s, f.path(key));
  for (const auto& item : *list) {
    if (!item.is_string()) return make_error(f.path(key), message("quant.module_list", "must be a list of module names"));
    recipe.add(item.get_ref<const std::string&>(), format);
  }
  recipe.finish();
  return true;
}

// A format the core does not model, counted as the nearest one it does, said once.
std::string counted_as(ModelSpec& s, const std::string& what, const std::string& format) {
  Message note = message("quant.counted_as", "{what} is not modelled; the weights are counted as {format}.",
                         {arg::text("what", what), arg::text("format", format)});
  const auto same = [&](const Message& m) { return m.text == note.text; };
  if (std::find_if(s.notes.begin(), s.notes.end(), same) == s.notes.end()) s.notes.push_back(std::move(note));
  return format;
}

// ModelOpt's quant_algo names (TensorRT-Model-Optimizer modelopt/torch/export/model_config.py, QUANTIZATION_*)
// → parse_weight_format's spelling.
std::string modelopt_format(ModelSpec& s, std::string_view algo_text, std::uint64_t group_size) {
  const std::string algo = upper_ascii(algo_text);
  if (algo == "NVFP4" || algo == "W4A16_NVFP4" || algo == "NVFP4_AWQ" || algo == "W4A8_NVFP4_FP8") return "nvfp4";
  if (algo == "FP8") return "fp8";
  if (algo == "FP8_PB_WO" || algo == "FP8_BLOCKWISE") return "fp8-block";
  if (algo == "FP8_PER_CHANNEL_PER_TOKEN") return "fp8-channel";
  if (algo == "MXFP4" || algo == "W4A8_MXFP4_FP8") return "mxfp4";
  if (algo == "INT8_SQ" || algo == "INT8_WO") return "int8";
  if (algo == "INT4_AWQ" || algo == "W4A8_AWQ")
    return counted_as(s, "ModelOpt " + algo + " (its own int4 packing)",
                      "awq-4bit-" + std::to_string(group_size ? group_size : 128) + "g");
  if (algo == "MXFP8") return "mxfp8";
  return counted_as(s, "ModelOpt quant_algo \"" + std::string(algo_text) + "\"", "bf16");
}

// The checkpoint's KV-cache quantization: ModelOpt's kv_cache_quant_algo "FP8", or a kv_cache_scheme "FP8" /
// {"num_bits": 8, "type": "float"}, as vLLM's get_kv_cache_quant_algo_string (vllm/utils/torch_utils.py) reads them.
void read_kv_cache(FieldReader& q, ModelSpec& s) {
  for (auto key : {"kv_cache_quant_algo", "kv_cache_scheme"}) {
    const json* v = q.find(key);
    if (!v) continue;
    std::string algo;
    if (v->is_string()) algo = upper_ascii(v->get_ref<const std::string&>());
    else if (v->is_object() && v->value("num_bits", 0) == 8 && v->value("type", std::string()) == "float") algo = "FP8";
    if (algo == "FP8") s.checkpoint_kv_dtype = "fp8";
    else
      s.notes.push_back(message("quant.kv_unmodelled",
                                "{where}: this KV-cache quantization is not modelled; the engine's KV precision is used.",
                                {arg::text("where", q.path(key))}));
    return;
  }
}

// ModelOpt (TensorRT-Model-Optimizer modelopt/torch/export/unified_export_hf.py): one quant_algo with
// exclude_modules (config.json: ignore) kept in the original bf16, or MIXED_PRECISION with a quantized_layers map
// of module → {quant_algo, group_size} (unlisted modules in bf16, or in the base format the config already gave).
Result<bool> read_modelopt(FieldReader& q, ModelSpec& s, bool keep_base) {
  const std::string algo = upper_ascii(q.string("quant_algo").value_or(""));
  const auto group = q.uint("group_size").value_or(0);
  read_kv_cache(q, s);
  if (algo != "MIXED_PRECISION") {
    if (algo.empty()) return true;
    s.quantization = modelopt_format(s, algo, group);
    s.quantization_rules.clear();
    for (auto key : {"exclude_modules", "ignore"})
      if (auto kept = read_module_list(q, key, "bf16", s); !kept) return kept.error();
    return true;
  }
  const json* layers = q.object("quantized_layers");
  if (!layers) return make_error(q.path("quantized_layers"),
                                 message("quant.mixed_precision_map", "MIXED_PRECISION needs a map of module → quant_algo"));
  RecipeBuilder recipe(s, q.path("quantized_layers"));
  std::map<std::string, std::uint64_t> modules_per_format;
  for (const auto& [module, entry] : layers->items()) {
    if (!entry.is_object() || !entry.contains("quant_algo") || !entry["quant_algo"].is_string())
      return make_error(q.path("quantized_layers." + module), message("quant.algo_string", "needs a \"quant_algo\" string"));
    const auto g = entry.contains("group_size") && entry["group_size"].is_number_unsigned()
                       ? entry["group_size"].get<std::uint64_t>() : group;
    const std::string format = modelopt_format(s, entry["quant_algo"].get_ref<const std::string&>(), g);
    ++modules_per_format[format];
    recipe.add(module, format);
  }
  recipe.finish();
  if (keep_base && !s.quantization.empty()) return true;
  // The format most modules use names the checkpoint; every module the map leaves out stays bf16.
  const auto most = std::max_element(modules_per_format.begin(), modules_per_format.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  s.quantization = most == modules_per_format.end() ? "bf16" : most->first;
  s.quantization_rules.push_back({"the modules quantized_layers leaves out", -1, "", "bf16"});
  return true;
}

// One compressed-tensors scheme (neuralmagic/compressed-tensors quantization/quant_args.py, QuantizationArgs:
// num_bits, type, strategy, group_size, symmetric) → parse_weight_format's spelling.
std::string compressed_format(ModelSpec& s, const json& weights, const json* inputs, std::string_view format) {
  const auto bits = weights.value("num_bits", 0);
  const std::string type = weights.value("type", std::string("int"));
  const std::string strategy = weights.contains("strategy") && weights["strategy"].is_string()
                                   ? weights["strategy"].get<std::string>() : "";
  const std::uint64_t group = weights.contains("group_size") && weights["group_size"].is_number_unsigned()
                                  ? weights["group_size"].get<std::uint64_t>() : 0;
  const bool symmetric = !weights.contains("symmetric") || !weights["symmetric"].is_boolean() ||
                         weights["symmetric"].get<bool>();
  const bool int8_inputs = inputs && inputs->is_object() && inputs->value("num_bits", 0) == 8 &&
                           inputs->value("type", std::string("int")) == "int";
  const std::string what = "compressed-tensors " + std::to_string(bits) + "-bit " + type + " weights" +
                           (strategy.empty() ? "" : " (strategy " + strategy + ")") +
                           (format.empty() ? "" : ", format " + std::string(format));
  if (type == "float" && bits == 8) {
    if (strategy == "channel") return "fp8-channel";
    if (strategy == "block") return "fp8-block";
    if (strategy.empty() || strategy == "tensor") return "fp8";
  }
  if (type == "float" && bits == 4) {
    if (group == 16 || format == "nvfp4-pack-quantized") return "nvfp4";
    if (group == 32 || format == "mxfp4-pack-quantized") return "mxfp4";
  }
  if (type == "int" && bits == 8 && int8_inputs) return "w8a8";
  if (type == "int" && (bits == 4 || bits == 8) && !int8_inputs) {
    std::string name = "w" + std::to_string(bits) + "a16";
    if (strategy == "group" && group && group != 128) name += "-" + std::to_string(group) + "g";
    if (!symmetric) name += "-asym";
    if (strategy == "group" || bits == 8) return name;
  }
  return counted_as(s, what, "bf16");
}

// compressed-tensors' quantization_config: config_groups of {targets, weights, input_activations, format}, `ignore`
// (module names and "re:" patterns) left in bf16, and a kv_cache_scheme.
Result<bool> read_compressed_tensors(FieldReader& q, ModelSpec& s) {
  const json* groups = q.object("config_groups");
  if (!groups)
    return make_error(q.path("config_groups"), message("quant.config_groups", "compressed-tensors needs config_groups"));
  const std::string top_format = q.string("format").value_or("");
  RecipeBuilder targeted(s, q.path("config_groups"));
  std::string base;
  for (const auto& [name, group] : groups->items()) {
    const json* weights = group.is_object() && group.contains("weights") && group["weights"].is_object()
                              ? &group["weights"] : nullptr;
    if (!weights)
      return make_error(q.path("config_groups." + name), message("quant.weights_scheme", "needs a \"weights\" scheme"));
    const json* inputs = group.contains("input_activations") ? &group["input_activations"] : nullptr;
    const std::string format = group.contains("format") && group["format"].is_string()
                                   ? group["format"].get<std::string>() : top_format;
    const std::string stored = compressed_format(s, *weights, inputs, format);
    const json empty = json::array();
    const json& targets = group.contains("targets") && group["targets"].is_array() ? group["targets"] : empty;
    for (const auto& target : targets) {
      if (!target.is_string()) continue;
      const auto& module = target.get_ref<const std::string&>();
      if (module == "Linear" || module == "re:.*Linear") base = stored;
      else targeted.add(module, stored);
    }
  }
  targeted.finish();
  if (auto kept = read_module_list(q, "ignore", "bf16", s); !kept) return kept.error();
  read_kv_cache(q, s);
  if (!base.empty()) {
    s.quantization = base;
  } else if (!s.quantization_rules.empty()) {  // only named modules are quantized: the rest stays bf16
    s.quantization = s.quantization_rules.front().format;
    s.quantization_rules.push_back({"the modules no config group targets", -1, "", "bf16"});
  }
  return true;
}

// transformers' FineGrainedFP8Config / DeepSeek's FP8 (quant_method "fp8"): weight_block_size [128, 128] stores one
// scale per 128×128 block (weight_scale_inv), one-byte E8M0 scales in DeepSeek-V4 (scale_fmt "ue8m0"; V3.1 / V3.2
// say ue8m0 for the rounding of their fp32 scales); without blocks one scale per matrix. Modules kept in bf16:
// modules_to_not_convert (transformers) or ignored_layers (vLLM's Fp8Config).
Result<bool> read_fp8(FieldReader& f, ModelSpec& s) {
  s.quantization = "fp8";
  if (const json* block = f.array("weight_block_size")) {
    const bool square128 = block->size() == 2 && (*block)[0] == 128 && (*block)[1] == 128;
    const bool e8m0 = f.string("scale_fmt").value_or("") == "ue8m0" && s.architecture == "deepseek_v4";
    s.quantization = e8m0 ? "fp8-block-e8m0" : "fp8-block";
    if (!square128) counted_as(s, "FP8 with weight_block_size " + dump(*block), s.quantization);
  }
  for (auto key : {"modules_to_not_convert", "ignored_layers"})
    if (auto kept = read_module_list(f, key, "bf16", s); !kept) return kept.error();
  return true;
}

// DeepSeek-V4's expert_dtype "fp4": its inference/model.py stores each routed expert's Linear as
// float4_e2m1fn_x2 [out, in/2] with a float8_e8m0fnu scale [out, in/32] (fp4_block_size 32), MXFP4's layout; vLLM
// loads them with its MXFP4 MoE method. The rest stays in the FP8 blocks.
void read_fp4_experts(ModelSpec& s) {
  s.quantization_rules.push_back({"the routed experts (expert_dtype fp4)", -1, "_exps", "mxfp4"});
}

// transformers' GPTQConfig (bits, group_size, -1 = no grouping) and AwqConfig (bits, group_size; AutoAWQ's w_bit,
// q_group_size).
Result<bool> read_gptq_awq(FieldReader& f, const std::string& method, ModelSpec& s) {
  const auto bits = f.has("bits") ? f.uint("bits") : f.uint("w_bit");
  const json* group = f.find(f.has("group_size") ? "group_size" : "q_group_size");
  std::int64_t g = 128;
  if (group && group->is_number_integer()) g = group->get<std::int64_t>();
  if (f.error()) return *f.error();
  if (!bits || !(*bits == 2 || *bits == 3 || *bits == 4 || *bits == 8))
    return make_error(f.path("bits"), message("quant.gptq_bits", "GPTQ/AWQ bits must be 2, 3, 4 or 8"));
  if (g == 0 || g < -1)
    return make_error(f.path("group_size"), message("quant.group_size", "must be positive or -1 (no grouping)"));
  s.quantization = method + "-" + std::to_string(*bits) + "bit" + (g == -1 ? std::string("-nogroup") : "-" + std::to_string(g) + "g");
  return true;
}

bool is_modelopt(FieldReader& f, std::string_view method) {
  return method == "modelopt" || f.has("quant_algo");
}

}  // namespace

// quantization_config → a weight format and its recipe. Spellings: GPTQ / AWQ, BitsAndBytesConfig (load_in_4bit,
// bnb_4bit_use_double_quant, load_in_8bit), Mxfp4Config (modules_to_not_convert stay bf16), FineGrainedFP8 /
// FbgemmFp8 (quant_method "fp8"), compressed-tensors and ModelOpt (quant_method "modelopt", or its quant_algo).
Result<bool> read_quantization(FieldReader& top, FieldReader& text, ModelSpec& s, bool skip_modelopt) {
  FieldReader& holder = top.has("quantization_config") ? top : text;
  const json* q = holder.object("quantization_config");
  if (holder.error()) return *holder.error();
  if (!q) return true;
  FieldReader f(*q, holder.path("quantization_config"));
  const std::string method = lower_ascii(f.string("quant_method").value_or(""));
  Result<bool> read = true;
  if (method == "gptq" || method == "awq") {
    read = read_gptq_awq(f, method, s);
  } else if (method == "bitsandbytes" || f.has("load_in_4bit") || f.has("load_in_8bit")) {
    if (f.boolean("load_in_4bit").value_or(false))
      s.quantization = f.boolean("bnb_4bit_use_double_quant").value_or(false) ? "nf4" : "nf4-no-dq";
    else if (f.boolean("load_in_8bit").value_or(false))
      s.quantization = "bnb-int8";
  } else if (method == "mxfp4") {
    s.quantization = "mxfp4";
    read = read_module_list(f, "modules_to_not_convert", "bf16", s);
  } else if (method == "fp8" || method == "fbgemm_fp8") {
    read = read_fp8(f, s);
    if (top.string("expert_dtype").value_or("") == "fp4") read_fp4_experts(s);
    // DeepSeek-V4's NVFP4 re-export: FP8 blocks as before, a ModelOpt map of the experts moved to NVFP4.
    if (read && is_modelopt(f, "") && !skip_modelopt) read = read_modelopt(f, s, true);
  } else if (is_modelopt(f, method)) {
    if (!skip_modelopt) read = read_modelopt(f, s, false);
  } else if (method == "compressed-tensors") {
    read = read_compressed_tensors(f, s);
  } else if (!method.empty()) {
    counted_as(s, "quantization_config quant_method \"" + method + "\"", "bf16");
  }
  if (!read) return read.error();
  if (f.error()) return *f.error();
  return true;
}

}  // namespace detail

CheckpointName read_checkpoint_name(std::string_view name) {
  CheckpointName out;
  std::string_view stem = name;
  if (lower_ascii(stem).ends_with("config.json")) {
    stem.remove_suffix(std::string_view("config.json").size());
    while (!stem.empty() && (stem.back() == '_' || stem.back() == '-' || stem.back() == '.')) stem.remove_suffix(1);
  }
  out.name = std::string(stem);
  // Words as people part them in a repository's name: "GLM-5.1-NVFP4", "Qwen3-32B-FP8-Static", "owner/name".
  std::size_t start = 0;
  for (std::size_t i = 0; i <= stem.size(); ++i) {
    const bool part = i == stem.size() || stem[i] == '-' || stem[i] == '_' || stem[i] == '.' || stem[i] == '/' ||
                      stem[i] == ' ';
    if (!part) continue;
    const std::string word = detail::upper_ascii(stem.substr(start, i - start));
    if (word == "NVFP4" || word == "FP8" || word == "FP4") out.format = word;
    start = i + 1;
  }
  return out;
}

Result<bool> apply_hf_quant_config(std::string_view quant_config_json, ModelSpec& spec) {
  auto parsed = detail::parse_json(detail::python_json_as_json(quant_config_json), "quant_config");
  if (!parsed) return parsed.error();
  if (!parsed.value().is_object())
    return make_error("quant_config", message("json.expected_json_object", "expected a JSON object"));
  detail::FieldReader root(parsed.value(), "quant_config");
  const detail::json* inner = root.has("quant_algo") ? &parsed.value() : root.object("quantization");
  if (root.error()) return *root.error();
  if (!inner)
    return make_error("quant_config.quantization",
                      message("quant.quantization_object", "an hf_quant_config.json holds a \"quantization\" object"));
  detail::FieldReader q(*inner, inner == &parsed.value() ? "quant_config" : root.path("quantization"));
  if (auto read = detail::read_modelopt(q, spec, true); !read) return read.error();
  if (q.error()) return *q.error();
  return true;
}

}  // namespace vramfit
