#include "vramfit/scenario.hpp"

#include <algorithm>  // std::all_of, std::min
#include <string>     // std::string, std::to_string

#include "json_fields.hpp"
#include "report_json.hpp"
#include "vramfit/hf_config.hpp"
#include "vramfit/weight_formats.hpp"

namespace vramfit {

using detail::dump;
using detail::FieldReader;
using detail::json;
using detail::or_null;
using detail::range_json;
using detail::text_or_null;

namespace {

std::string preset_ids(const Catalog& catalog) {
  std::string out;
  for (const auto& p : catalog.models) {
    if (!out.empty()) out += ", ";
    out += p.spec.id;
  }
  return out;
}

Result<ModelSpec> resolve_model(const Catalog& catalog, const Request& r, std::uint64_t& published, bool& from_preset) {
  const int given = !r.model.empty() + !r.config_json.empty() + (r.params != 0) + r.imported.has_value();
  if (given > 1) return make_error("model", "give only one of a preset, a config.json, a model file or a parameter count");
  // A config or file carries no display name: say what it is rather than print a blank.
  auto named = [](ModelSpec spec, const char* what) {
    if (spec.name.empty()) spec.name = (spec.architecture.empty() ? std::string("model") : spec.architecture) + " " + what;
    if (spec.id.empty()) spec.id = "custom";
    return spec;
  };
  if (r.imported) return named(r.imported->spec, "(model file)");
  if (!r.config_json.empty()) {
    auto spec = model_from_hf_config(r.config_json);
    if (!spec) return spec.error();
    return named(std::move(spec).value(), "(config.json)");
  }
  if (!r.model.empty()) {
    const ModelPreset* preset = find_model(catalog.models, r.model);
    if (!preset) return make_error("model", "unknown model \"" + r.model + "\"; known: " + preset_ids(catalog));
    published = preset->published_total;
    from_preset = true;
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

std::string joined(std::span<const KvDTypeInfo> infos) {
  std::string out;
  for (const auto& i : infos) out += (out.empty() ? "" : ", ") + std::string(i.name);
  return out;
}

json speed_json(const ServingSpeed& s) {
  const DecodeSpeed& d = s.decode;
  return json{{"compute_path", compute_path_name(s.compute)},
              {"decode_tokens_per_second", range_json(d.tokens_per_second)},
              {"decode_tokens_per_second_per_sequence", range_json(d.tokens_per_second_per_sequence)},
              {"decode_step_seconds", range_json(d.step_seconds)},
              {"bytes_per_step", d.bytes_per_step_per_gpu},
              {"flops_per_step", d.flops_per_step_per_gpu},
              {"compute_bound", d.compute_bound},
              {"cpu_seconds", range_json(d.cpu_seconds)},
              {"tensor_parallel_efficiency", d.tensor_parallel_efficiency},
              {"explanation", d.explanation},
              {"prompt_tokens", s.prompt_tokens},
              {"prefill_tokens_per_second", s.prefill ? range_json(s.prefill->tokens_per_second) : json(nullptr)},
              {"prefill_unavailable", text_or_null(s.prefill_unavailable)},
              {"prefill_explanation", s.prefill ? json(s.prefill->explanation) : json(nullptr)},
              {"efficiency_source", s.efficiency_source},
              {"note", text_or_null(s.note)}};
}

json cost_json(const ServingCost& c, const Gpu& gpu) {
  json energy = nullptr;
  if (c.energy) {
    const EnergyUse& e = *c.energy;
    energy = {{"usd_per_kwh", e.usd_per_kwh},
              {"tdp_w", e.tdp_w},
              {"kwh_per_hour", e.kwh_per_hour},
              {"usd_per_hour", e.usd_per_hour},
              {"usd_per_million_tokens", or_null(e.usd_per_million_tokens)},
              {"basis", "board power at TDP for the whole hour (an upper bound); the host is not counted"}};
  }
  const auto& price = gpu.cloud_usd_per_hour;
  return json{{"usd_per_hour", or_null(c.usd_per_hour)},
              {"price_date", price ? json(price->date) : json(nullptr)},
              {"price_source", price ? json(price->source) : json(nullptr)},
              {"usd_per_million_tokens", or_null(c.usd_per_million_tokens)},
              {"energy", std::move(energy)},
              {"energy_unavailable", text_or_null(c.energy_unavailable)}};
}

}  // namespace

Result<Catalog> load_catalog(std::string_view models_json, std::string_view gpus_json) {
  auto models = parse_model_presets(models_json);
  if (!models) return models.error();
  auto gpus = parse_gpu_catalog(gpus_json);
  if (!gpus) return gpus.error();
  return Catalog{std::move(models).value(), std::move(gpus).value()};
}

Result<ResolvedRequest> resolve_request(const Catalog& catalog, const Request& r) {
  ResolvedRequest out;
  bool from_preset = false;
  auto spec = resolve_model(catalog, r, out.published_params, from_preset);
  if (!spec) return spec.error();
  out.model = std::move(spec).value();
  InferenceOptions& o = out.options;

  const auto engine = parse_engine(r.engine);
  if (!engine) return make_error("engine", "unknown engine \"" + r.engine + "\"; allowed: " + std::string(kEngineNames));
  o.engine = *engine;
  // Weights: the request's format; else the checkpoint's quantization_config; else bf16 (torch_dtype is not
  // trusted: it says how the file is stored). A model file's header gives exact bytes.
  const std::string weights = !r.weights.empty() ? r.weights : !out.model.quantization.empty() ? out.model.quantization
                                                                                             : std::string("bf16");
  auto format = parse_weight_format(weights);
  if (!format) return format.error();
  o.weight_format = format.value();
  o.weights = format.value().dtype;
  if (r.imported && r.weights.empty()) o.weight_format.reset(), o.exact_weights = r.imported->weights;
  if (!r.kv_dtype.empty()) {
    const auto kv = parse_kv_dtype(r.kv_dtype);
    if (!kv) return make_error("kv_dtype", "unknown KV cache precision \"" + r.kv_dtype + "\"; allowed: " + joined(all_kv_dtypes()));
    o.kv_dtype = *kv;
  }
  if (!r.attention.empty()) {
    const auto a = parse_attention(r.attention);
    if (!a) return make_error("attention", "unknown attention \"" + r.attention + "\"; allowed: " + std::string(kAttentionNames));
    o.attention = *a;
  }
  if (!r.kv_allocation.empty()) {
    const auto k = parse_kv_allocation(r.kv_allocation);
    if (!k) return make_error("kv_allocation", "unknown KV allocation \"" + r.kv_allocation + "\"; allowed: " + std::string(kKvAllocationNames));
    o.kv_allocation = *k;
  }
  // Default context: the engine's own, never silently the model's maximum for transformers/llama.cpp.
  const auto& m = out.model;
  if (r.context) {
    o.context_tokens = *r.context;
    out.context_source = "request";
  } else if (o.engine == Engine::llamacpp) {
    o.context_tokens = kLlamaDefaultCtx;
    out.context_source = "engine_default";
  } else if (o.engine == Engine::vllm && m.max_context) {
    o.context_tokens = m.max_context;  // vLLM's max_model_len defaults to the config's maximum
    out.context_source = "model_max";
  } else if (from_preset && m.default_context) {
    o.context_tokens = m.default_context;
    out.context_source = "preset";
  } else {
    o.context_tokens = kLlamaDefaultCtx;
    out.context_source = "engine_default";
  }
  o.batch = r.batch;
  o.avg_tokens = r.avg_tokens;
  o.expandable_segments = r.expandable_segments;
  o.gpu_util = r.gpu_util;
  o.max_num_batched_tokens = r.max_num_batched_tokens;
  o.max_num_seqs = r.max_num_seqs;
  o.gpu_layers = r.gpu_layers;
  if (auto ok = validate_serving_inputs(r.serving); !ok) return ok.error();
  if (!(r.headroom >= 0 && r.headroom <= 0.9))
    return make_error("headroom", "must be a fraction between 0 and 0.9, got " + std::to_string(r.headroom));
  out.fit_headroom = o.engine == Engine::vllm ? std::max(r.headroom, 1.0 - o.gpu_util) : r.headroom;
  if (!r.gpu.empty()) {
    out.gpu = find_gpu(catalog.gpus, r.gpu);
    if (!out.gpu) return make_error("gpu", "unknown GPU \"" + r.gpu + "\"; list them with --list-gpus");
    o.gpu_memory_bytes = out.gpu->usable_bytes();
    o.gpu_is_a100 = lookup_key(out.gpu->name).find("a100") != std::string::npos;
  }
  return out;
}

Result<Report> evaluate(const Catalog& catalog, const Request& r) {
  auto resolved = resolve_request(catalog, r);
  if (!resolved) return resolved.error();
  auto& rr = resolved.value();
  Report report;
  report.model = std::move(rr.model);
  report.published_params = rr.published_params;
  report.context_source = rr.context_source;
  report.headroom = r.headroom;

  auto estimate = estimate_inference(report.model, rr.options);
  if (!estimate) return estimate.error();
  report.estimate = std::move(estimate).value();
  if (report.context_source == "engine_default" && !report.model.is_bare())
    report.estimate.notes.push_back("No context given: " + std::to_string(rr.options.context_tokens) +
                                    " tokens assumed (the engine's default" +
                                    (report.model.max_context ? "; the model allows " + std::to_string(report.model.max_context)
                                                              : std::string()) + ").");
  if (report.context_source == "model_max")
    report.estimate.notes.push_back("No context given: vLLM sizes max_model_len to the model's maximum (" +
                                    std::to_string(rr.options.context_tokens) + " tokens); pass --context to lower it.");

  const double fit_headroom = rr.fit_headroom;
  if (rr.gpu) {
    report.gpus = check_fit(report.estimate, std::vector<Gpu>{*rr.gpu}, fit_headroom);
    // check_fit pointed into the temporary vector: point at the catalog's entry instead.
    report.gpus.front().gpu = rr.gpu;
    // vLLM refuses to start when its KV blocks cannot hold one sequence of max_model_len.
    if (report.estimate.vllm && report.estimate.vllm->max_concurrency == 0)
      report.gpus.front().fit = Fit::does_not_fit;
    report.serving = estimate_serving(report.model, report.estimate, *rr.gpu, r.serving,
                                      report.gpus.front().fit == Fit::fits);
  } else {
    report.gpus = check_fit(report.estimate, catalog.gpus, fit_headroom);
  }
  return report;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

Result<Request> request_from_json(std::string_view text) {
  auto parsed = detail::parse_json(text, "request");
  if (!parsed) return parsed.error();
  const json& j = parsed.value();
  if (!j.is_object()) return make_error("request", "expected a JSON object");
  static constexpr std::string_view kKeys[] = {
      "model", "config", "params", "weights", "kv_dtype", "context", "batch", "headroom", "gpu", "engine",
      "attention", "kv_allocation", "avg_tokens", "expandable_segments", "gpu_util", "max_num_batched_tokens",
      "max_num_seqs", "gpu_layers", "system_bandwidth", "prompt_tokens", "usd_per_kwh", "gpus", "budget_per_hour",
      "mode"};
  if (auto unknown = detail::refuse_unknown_keys(j, kKeys, "input")) return *unknown;
  FieldReader f(j, "");
  // Training modes are answered by evaluate_training (training_scenario.hpp); here only inference.
  if (const auto mode = f.string("mode"); mode && *mode != "inference")
    return make_error("mode", "\"" + *mode + "\" is a training mode; this request answers inference only");
  Request r;
  r.model = f.string("model").value_or("");
  r.config_json = detail::config_text(f);
  r.params = f.uint("params").value_or(0);
  r.weights = f.string("weights").value_or("");
  r.kv_dtype = f.string("kv_dtype").value_or("");
  r.context = f.uint("context");
  r.batch = f.uint("batch").value_or(1);
  r.headroom = f.number("headroom").value_or(kDefaultHeadroom);
  r.gpu = f.string("gpu").value_or("");
  r.engine = f.string("engine").value_or("transformers");
  r.attention = f.string("attention").value_or("");
  r.kv_allocation = f.string("kv_allocation").value_or("");
  r.avg_tokens = f.uint("avg_tokens");
  r.expandable_segments = f.boolean("expandable_segments").value_or(false);
  r.gpu_util = f.number("gpu_util").value_or(kVllmDefaultGpuUtil);
  r.max_num_batched_tokens = f.uint("max_num_batched_tokens");
  r.max_num_seqs = f.uint("max_num_seqs");
  r.gpu_layers = f.uint("gpu_layers");
  r.serving.system_bandwidth_gb_s = f.number("system_bandwidth");
  r.serving.prompt_tokens = f.uint("prompt_tokens");
  r.serving.usd_per_kwh = f.number("usd_per_kwh");
  r.budget_per_hour = f.number("budget_per_hour");
  if (const json* gpus = f.find("gpus")) {
    // An array of ids or names, or one comma-separated string (as the CLI's --gpus takes it).
    if (gpus->is_string()) r.gpus = split_list(gpus->get<std::string>());
    else if (gpus->is_array() && std::all_of(gpus->begin(), gpus->end(), [](const json& g) { return g.is_string(); }))
      for (const json& g : *gpus) r.gpus.push_back(g.get<std::string>());
    else f.fail("gpus", "expected an array of GPU ids or a comma-separated string", *gpus);
  }
  if (f.error()) return *f.error();
  return r;
}

std::string report_to_json(const Report& report) {
  const auto& e = report.estimate;
  const auto& m = report.model;
  json out;
  out["ok"] = true;
  out["model"] = detail::model_json(m, e.params, report.published_params);
  out["inputs"] = {
      {"weights", e.weights_format},
      {"compute_dtype", dtype_info(e.weights_dtype).name},
      {"kv_dtype", kv_dtype_info(e.kv_dtype).name},
      {"context", e.context_tokens},
      {"context_source", report.context_source},
      {"batch", e.batch},
      {"headroom", report.headroom},
      {"engine", engine_name(e.engine)},
      {"attention", attention_name(e.attention)},
      {"kv_allocation", kv_allocation_name(e.kv_allocation.strategy)},
      {"expandable_segments", e.expandable_segments},
  };
  out["breakdown"] = {
      {"weights", e.weights},         {"kv_cache", e.kv_cache}, {"activations", e.activations},
      {"overhead", e.overhead},       {"allocator_reserve", e.allocator_reserve}, {"total", e.total},
  };
  out["range"] = {{"low", e.range.low}, {"high", e.range.high}, {"drivers", e.range.drivers}};
  const auto& w = e.weight_detail;
  json storage = json::array();
  for (const auto& t : w.storage) storage.push_back({{"type", t.type}, {"elements", t.elements}, {"bytes", t.bytes}});
  out["weights"] = {{"format", e.weights_format}, {"total_bytes", w.total}, {"embedding", w.embedding},
                    {"output", w.output},         {"attention", w.attention}, {"mlp", w.mlp},
                    {"norms", w.norms},           {"other", w.other},         {"storage", storage},
                    {"explanation", w.explanation}};
  out["kv_cache"] = {
      {"bytes_per_token", e.kv.bytes_per_token},
      {"bytes_per_token_layer", e.kv.bytes_per_token_layer},
      {"windowed_layers", e.kv.windowed_layers},
      {"window_cells", e.kv.window_cells},
      {"mla_cache", e.kv.mla == MlaCache::latent ? "latent" : "per_head"},
      {"dtype", kv_dtype_info(e.kv_dtype).name},
  };
  out["kv_allocation"] = {{"strategy", kv_allocation_name(e.kv_allocation.strategy)},
                          {"avg_tokens", e.kv_allocation.avg_tokens},
                          {"static_bytes", e.kv_allocation.static_bytes},
                          {"paged_bytes", e.kv_allocation.paged_bytes}};
  out["activations"] = {{"attention_scores", e.attention_scores}, {"logits", e.logits}};
  out["vllm"] = nullptr;
  if (e.vllm) {
    const auto& v = *e.vllm;
    out["vllm"] = {{"gpu_memory_utilization", v.gpu_util},
                   {"budget_bytes", v.budget_bytes},
                   {"max_num_batched_tokens", v.max_num_batched_tokens},
                   {"max_num_seqs", v.max_num_seqs},
                   {"profile_activation_bytes", v.profile_activation_bytes},
                   {"non_torch_bytes", v.non_torch_bytes},
                   {"cuda_graph_bytes", v.cuda_graph_bytes},
                   {"block_size", kVllmBlockSize},
                   {"block_bytes", v.block_bytes},
                   {"num_blocks", v.num_blocks},
                   {"kv_capacity_bytes", v.kv_capacity_bytes},
                   {"kv_capacity_tokens", v.kv_capacity_tokens},
                   {"sequence_tokens", v.sequence_tokens},
                   {"max_concurrency", v.max_concurrency},
                   {"concurrency_ratio", v.concurrency_ratio}};
  }
  out["llamacpp"] = nullptr;
  if (e.llamacpp) {
    const auto& b = *e.llamacpp;
    out["llamacpp"] = {{"n_ctx", b.n_ctx},
                       {"n_ubatch", b.n_ubatch},
                       {"flash_attn", b.flash_attn},
                       {"gpu_layers", b.gpu_layers},
                       {"total_layers", b.total_layers},
                       {"output_on_gpu", b.output_on_gpu},
                       {"compute_buffer_bytes", b.compute_buffer_bytes},
                       {"compute_buffer_other_bytes", b.compute_buffer_other_bytes},
                       {"output_buffer_bytes", b.output_buffer_bytes},
                       {"host_weights_bytes", b.host_weights_bytes},
                       {"host_kv_bytes", b.host_kv_bytes},
                       {"host_ram_bytes", b.host_ram_bytes}};
  }
  out["explanations"] = detail::explanations_json(e.explanations);
  out["notes"] = e.notes;
  json gpus = json::array();
  for (const auto& f : report.gpus) {
    json gpu = detail::gpu_fit_json(*f.gpu, f.fit, f.free_bytes);
    gpu["gpus_needed"] = f.gpus_needed;
    gpus.push_back(std::move(gpu));
  }
  out["gpus"] = std::move(gpus);
  out["speed"] = nullptr;
  out["speed_unavailable"] = nullptr;
  out["cost"] = nullptr;
  out["decode_tokens_per_second"] = nullptr;
  out["prefill_tokens_per_second"] = nullptr;
  if (report.serving && !report.gpus.empty()) {
    const ServingEstimate& s = *report.serving;
    out["cost"] = cost_json(s.cost, *report.gpus.front().gpu);
    out["speed_unavailable"] = text_or_null(s.speed_unavailable);
    if (s.speed) {
      out["speed"] = speed_json(*s.speed);
      out["decode_tokens_per_second"] = range_json(s.speed->decode.tokens_per_second);
      if (s.speed->prefill) out["prefill_tokens_per_second"] = range_json(s.speed->prefill->tokens_per_second);
    }
  }
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
  json kv = json::array();
  for (const auto& d : all_kv_dtypes())
    kv.push_back({{"name", d.name}, {"bits", 8.0 * d.block_bytes / d.block_elements}, {"summary", d.summary}});
  return dump(json{{"models", models},
                   {"gpus", gpus},
                   {"dtypes", dtypes},
                   {"weight_formats", weight_format_examples()},
                   {"kv_dtypes", kv},
                   {"engines", {"transformers", "vllm", "llamacpp"}},
                   {"attention", {"sdpa", "eager"}},
                   {"kv_allocation", {"static", "paged"}},
                   // "inference" goes through evaluate(); the others through evaluate_training().
                   {"modes", {"inference", "train", "lora", "qlora"}}});
}

}  // namespace vramfit
