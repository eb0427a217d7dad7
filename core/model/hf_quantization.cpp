#include "model/hf_quantization.hpp"

#include <string>       // std::string
#include <string_view>  // std::string_view

namespace vramfit::detail {
namespace {

// A quantization config's list of modules stored in `format` instead → the spec's recipe rules; modules the core
// has no tensor for are named in one note.
Result<bool> read_kept_modules(FieldReader& f, std::string_view key, const std::string& format, ModelSpec& s) {
  const json* list = f.find(key);
  if (!list) return true;
  if (!list->is_array()) return make_error(f.path(key), "must be a list of module names");
  std::string unmatched;
  for (const auto& item : *list) {
    if (!item.is_string()) return make_error(f.path(key), "must be a list of module names");
    const auto& module = item.get_ref<const std::string&>();
    if (auto rule = rule_for_module(module, format)) s.quantization_rules.push_back(std::move(*rule));
    else unmatched += (unmatched.empty() ? "" : ", ") + module;
  }
  if (!unmatched.empty())
    s.notes.push_back(f.path(key) + ": no tensor vramfit counts is named " + unmatched + "; nothing is moved for them.");
  return true;
}

}  // namespace

// quantization_config (top level, or in text_config) → a weight format name. Spellings: transformers'
// GPTQConfig (bits, group_size, -1 = no grouping), AwqConfig (bits, group_size; AutoAWQ's w_bit,
// q_group_size), BitsAndBytesConfig (load_in_4bit, bnb_4bit_use_double_quant, load_in_8bit), Mxfp4Config
// (modules_to_not_convert stay bf16), FbgemmFp8/
// FineGrainedFP8 and compressed-tensors fp8 ("quant_method": "fp8").
Result<bool> read_quantization(FieldReader& top, FieldReader& text, ModelSpec& s) {
  FieldReader& holder = top.has("quantization_config") ? top : text;
  const json* q = holder.object("quantization_config");
  if (holder.error()) return *holder.error();
  if (!q) return true;
  FieldReader f(*q, holder.path("quantization_config"));
  const std::string method = f.string("quant_method").value_or("");
  if (method == "gptq" || method == "awq") {
    const auto bits = f.has("bits") ? f.uint("bits") : f.uint("w_bit");
    const json* group = f.find(f.has("group_size") ? "group_size" : "q_group_size");
    std::int64_t g = 128;
    if (group && group->is_number_integer()) g = group->get<std::int64_t>();
    if (f.error()) return *f.error();
    if (!bits || !(*bits == 2 || *bits == 3 || *bits == 4 || *bits == 8))
      return make_error(f.path("bits"), "GPTQ/AWQ bits must be 2, 3, 4 or 8");
    if (g == 0 || g < -1) return make_error(f.path("group_size"), "must be positive or -1 (no grouping)");
    s.quantization = method + "-" + std::to_string(*bits) + "bit" + (g == -1 ? std::string("-nogroup") : "-" + std::to_string(g) + "g");
  } else if (method == "bitsandbytes" || f.has("load_in_4bit") || f.has("load_in_8bit")) {
    if (f.boolean("load_in_4bit").value_or(false))
      s.quantization = f.boolean("bnb_4bit_use_double_quant").value_or(false) ? "nf4" : "nf4-no-dq";
    else if (f.boolean("load_in_8bit").value_or(false))
      s.quantization = "bnb-int8";
  } else if (method == "mxfp4") {
    s.quantization = "mxfp4";
    if (auto kept = read_kept_modules(f, "modules_to_not_convert", "bf16", s); !kept) return kept.error();
  } else if (method == "fp8" || method == "fbgemm_fp8") {
    s.quantization = "fp8";
  } else if (method == "compressed-tensors") {
    const std::string format = f.string("format").value_or("");
    if (format.find("float") != std::string::npos || format.find("fp8") != std::string::npos) s.quantization = "fp8";
    else s.notes.push_back("compressed-tensors format \"" + format + "\" is not modelled; choose the weight format instead.");
  } else if (!method.empty()) {
    s.notes.push_back("quantization_config quant_method \"" + method + "\" is not modelled; choose the weight format instead.");
  }
  if (f.error()) return *f.error();
  return true;
}

}  // namespace vramfit::detail
