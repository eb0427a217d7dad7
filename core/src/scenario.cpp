#include "vramfit/scenario.hpp"

#include <string>  // std::string, std::to_string

#include "json_fields.hpp"
#include "vramfit/hf_config.hpp"

namespace vramfit {

using detail::FieldReader;
using detail::json;

namespace {

std::string dump(const json& j) {
  // Replace invalid UTF-8 (a model name typed into the CLI) instead of throwing.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string preset_ids(const Catalog& catalog) {
  std::string out;
  for (const auto& p : catalog.models) {
    if (!out.empty()) out += ", ";
    out += p.spec.id;
  }
  return out;
}

Result<ModelSpec> resolve_model(const Catalog& catalog, const Request& r, std::uint64_t& published) {
  const int given = !r.model.empty() + !r.config_json.empty() + (r.params != 0);
  if (given > 1) return make_error("model", "give only one of a preset, a config.json or a parameter count");
  if (!r.config_json.empty()) return model_from_hf_config(r.config_json);
  if (!r.model.empty()) {
    const ModelPreset* preset = find_model(catalog.models, r.model);
    if (!preset) return make_error("model", "unknown model \"" + r.model + "\"; known: " + preset_ids(catalog));
    published = preset->published_total;
    return preset->spec;
  }
  if (r.params != 0) {
    ModelSpec bare;
    bare.id = "custom";
    bare.name = "Custom model (" + std::to_string(r.params) + " parameters)";
    bare.bare_params = r.params;
    if (auto ok = validate(bare); !ok) return ok.error();
    return bare;
  }
  return make_error("model", "give a preset id, a config.json or a parameter count");
}

}  // namespace

Result<Catalog> load_catalog(std::string_view models_json, std::string_view gpus_json) {
  auto models = parse_model_presets(models_json);
  if (!models) return models.error();
  auto gpus = parse_gpu_catalog(gpus_json);
  if (!gpus) return gpus.error();
  return Catalog{std::move(models).value(), std::move(gpus).value()};
}

Result<Report> evaluate(const Catalog& catalog, const Request& r) {
  Report report;
  auto spec = resolve_model(catalog, r, report.published_params);
  if (!spec) return spec.error();
  report.model = std::move(spec).value();

  InferenceOptions options;
  const auto weights = parse_dtype(r.weights);
  if (!weights) return make_error("weights", "unknown precision \"" + r.weights + "\"; allowed: " + dtype_names());
  options.weights = *weights;
  if (!r.kv_dtype.empty()) {
    const auto kv = parse_dtype(r.kv_dtype);
    if (!kv || *kv == DType::int8 || *kv == DType::int4)
      return make_error("kv_dtype", "unknown KV cache precision \"" + r.kv_dtype + "\"; allowed: fp32, fp16, bf16, fp8");
    options.kv_dtype = *kv;
  }
  options.context_tokens = r.context.value_or(report.model.default_context ? report.model.default_context : 4096);
  options.batch = r.batch;
  if (!(r.headroom >= 0 && r.headroom <= 0.9))
    return make_error("headroom", "must be a fraction between 0 and 0.9, got " + std::to_string(r.headroom));
  report.headroom = r.headroom;

  auto estimate = estimate_inference(report.model, options);
  if (!estimate) return estimate.error();
  report.estimate = std::move(estimate).value();

  if (!r.gpu.empty()) {
    const Gpu* gpu = find_gpu(catalog.gpus, r.gpu);
    if (!gpu) return make_error("gpu", "unknown GPU \"" + r.gpu + "\"; list them with --list-gpus");
    report.gpus = check_fit(report.estimate, std::vector<Gpu>{*gpu}, r.headroom);
    // check_fit pointed into the temporary vector: point at the catalog's entry instead.
    report.gpus.front().gpu = gpu;
  } else {
    report.gpus = check_fit(report.estimate, catalog.gpus, r.headroom);
  }
  return report;
}

Result<Request> request_from_json(std::string_view text) {
  auto parsed = detail::parse_json(text, "request");
  if (!parsed) return parsed.error();
  const json& j = parsed.value();
  if (!j.is_object()) return make_error("request", "expected a JSON object");
  static constexpr std::string_view kKeys[] = {"model", "config", "params", "weights", "kv_dtype",
                                               "context", "batch", "headroom", "gpu"};
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (auto k : kKeys) known = known || k == key;
    if (!known)
      return make_error(key, "is not a known input; allowed: model, config, params, weights, kv_dtype, context, "
                             "batch, headroom, gpu");
  }
  FieldReader f(j, "");
  Request r;
  r.model = f.string("model").value_or("");
  if (const json* config = f.find("config")) {
    if (config->is_string()) r.config_json = config->get<std::string>();
    else if (config->is_object()) r.config_json = dump(*config);
    else f.fail("config", "expected a config.json object or its text", *config);
  }
  r.params = f.uint("params").value_or(0);
  r.weights = f.string("weights").value_or("bf16");
  r.kv_dtype = f.string("kv_dtype").value_or("");
  r.context = f.uint("context");
  r.batch = f.uint("batch").value_or(1);
  r.headroom = f.number("headroom").value_or(kDefaultHeadroom);
  r.gpu = f.string("gpu").value_or("");
  if (f.error()) return *f.error();
  return r;
}

std::string report_to_json(const Report& report) {
  const auto& e = report.estimate;
  const auto& m = report.model;
  json out;
  out["ok"] = true;
  out["model"] = {
      {"id", m.id},
      {"name", m.name},
      {"architecture", m.architecture},
      {"params_total", e.params.total},
      {"params_active", e.params.active},
      {"published_params", report.published_params},
      {"layers", m.num_layers},
      {"hidden_size", m.hidden_size},
      {"attention_heads", m.num_attention_heads},
      {"kv_heads", m.num_kv_heads},
      {"head_dim", m.head_dim},
      {"sliding_window", m.sliding_window},
      {"max_context", m.max_context},
      {"default_context", m.default_context},
  };
  out["inputs"] = {
      {"weights", dtype_info(e.weights_dtype).name},
      {"kv_dtype", dtype_info(e.kv_dtype).name},
      {"context", e.context_tokens},
      {"batch", e.batch},
      {"headroom", report.headroom},
  };
  out["breakdown"] = {
      {"weights", e.weights},         {"kv_cache", e.kv_cache}, {"activations", e.activations},
      {"overhead", e.overhead},       {"total", e.total},
  };
  out["kv_cache"] = {
      {"bytes_per_token", e.kv.bytes_per_token},
      {"bytes_per_token_layer", e.kv.bytes_per_token_layer},
      {"windowed_layers", e.kv.windowed_layers},
  };
  json explanations = json::array();
  for (const auto& x : e.explanations)
    explanations.push_back({{"key", x.key}, {"formula", x.formula}, {"values", x.values}, {"source", x.source}});
  out["explanations"] = std::move(explanations);
  out["notes"] = e.notes;
  json gpus = json::array();
  for (const auto& f : report.gpus) {
    gpus.push_back({
        {"id", f.gpu->id},
        {"name", f.gpu->name},
        {"vendor", f.gpu->vendor},
        {"segment", f.gpu->segment},
        {"memory_bytes", f.gpu->memory_bytes},
        {"usable_bytes", f.gpu->usable_bytes()},
        {"fit", fit_name(f.fit)},
        {"free_bytes", f.free_bytes},
        {"gpus_needed", f.gpus_needed},
    });
  }
  out["gpus"] = std::move(gpus);
  return dump(out);
}

std::string error_to_json(const Error& error) {
  return dump(json{{"ok", false}, {"error", {{"field", error.field}, {"message", error.message}}}});
}

std::string catalog_to_json(const Catalog& catalog) {
  json models = json::array();
  for (const auto& p : catalog.models) {
    const auto counts = count_params(p.spec);
    models.push_back({
        {"id", p.spec.id},
        {"name", p.spec.name},
        {"hf_repo", p.hf_repo},
        {"params_total", counts ? counts.value().total : 0},
        {"params_active", counts ? counts.value().active : 0},
        {"default_context", p.spec.default_context},
        {"max_context", p.spec.max_context},
    });
  }
  json gpus = json::array();
  for (const auto& g : catalog.gpus) {
    gpus.push_back({
        {"id", g.id},
        {"name", g.name},
        {"vendor", g.vendor},
        {"segment", g.segment},
        {"memory_bytes", g.memory_bytes},
        {"usable_bytes", g.usable_bytes()},
    });
  }
  json dtypes = json::array();
  for (const auto& d : all_dtypes()) dtypes.push_back({{"name", d.name}, {"bits", d.bits}, {"summary", d.summary}});
  return dump(json{{"models", models}, {"gpus", gpus}, {"dtypes", dtypes}});
}

}  // namespace vramfit
