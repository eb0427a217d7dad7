#include "questions/evaluate.hpp"

#include <algorithm>  // std::all_of
#include <string>     // std::string, std::to_string

#include "util/json_fields.hpp"
#include "util/number_text.hpp"
#include "json/report_json.hpp"
#include "util/text.hpp"
#include "model/hf_config.hpp"
#include "formats/weight_formats.hpp"

namespace vramfit {

using detail::FieldReader;
using detail::json;
using detail::JsonWriter;
using detail::write_range;
using detail::write_text_or_null;

namespace {

std::string preset_ids(const Catalog& catalog) {
  std::string out;
  for (const auto& p : catalog.models) {
    if (!out.empty()) out += ", ";
    out += p.spec.id;
  }
  return out;
}

Result<ModelSpec> resolve_model(const Catalog& catalog, const Request& r, std::uint64_t& published, bool& from_preset,
                                std::string& source) {
  const int given = !r.model.empty() + !r.config_json.empty() + (r.params != 0) + r.imported.has_value();
  if (given > 1) return make_error("model", "give only one of a preset, a config.json, a model file or a parameter count");
  // A config or file carries no display name: say what it is rather than print a blank.
  auto named = [](ModelSpec spec, const char* what) {
    if (spec.name.empty()) spec.name = (spec.architecture.empty() ? std::string("model") : spec.architecture) + " " + what;
    if (spec.id.empty()) spec.id = "custom";
    return spec;
  };
  if (r.imported) {
    source = "the model file's header (its architecture metadata and tensor shapes)";
    return named(r.imported->spec, "(model file)");
  }
  if (!r.config_json.empty()) {
    auto spec = model_from_hf_config(r.config_json);
    if (!spec) return spec.error();
    source = "the config.json given (its architecture fields)";
    return named(std::move(spec).value(), "(config.json)");
  }
  if (!r.model.empty()) {
    const ModelPreset* preset = find_model(catalog.models, r.model);
    if (!preset) return make_error("model", "unknown model \"" + r.model + "\"; known: " + preset_ids(catalog));
    published = preset->published_total;
    from_preset = true;
    detail::Text t;
    t << "preset: " << preset->config_source;
    if (!preset->published_source.empty()) t << "; published count: " << preset->published_source;
    source = t.str();
    return preset->spec;
  }
  if (r.params != 0) {
    ModelSpec bare;
    bare.id = "custom";
    bare.name = "Custom model (" + std::to_string(r.params) + " parameters)";
    bare.bare_params = r.params;
    if (auto ok = validate(bare); !ok) return ok.error();
    source = "the parameter count given";
    return bare;
  }
  return make_error("model", "give a preset id, a config.json or a parameter count");
}

std::string joined(std::span<const KvDTypeInfo> infos) {
  std::string out;
  for (const auto& i : infos) out += (out.empty() ? "" : ", ") + std::string(i.name);
  return out;
}

void write_speed(JsonWriter& w, const ServingSpeed& s) {
  const DecodeSpeed& d = s.decode;
  w.begin_object("speed");
  w.field("bytes_per_step", d.bytes_per_step_per_gpu);
  w.field("compute_bound", d.compute_bound);
  w.field("compute_path", compute_path_name(s.compute));
  write_range(w, "cpu_seconds", d.cpu_seconds);
  write_range(w, "decode_step_seconds", d.step_seconds);
  write_range(w, "decode_tokens_per_second", d.tokens_per_second);
  write_range(w, "decode_tokens_per_second_per_sequence", d.tokens_per_second_per_sequence);
  w.field("efficiency_source", s.efficiency_source);
  w.field("explanation", d.explanation);
  w.field("flops_per_step", d.flops_per_step_per_gpu);
  write_text_or_null(w, "note", s.note);
  if (s.prefill) w.field("prefill_explanation", s.prefill->explanation);
  else w.field("prefill_explanation", nullptr);
  if (s.prefill) write_range(w, "prefill_tokens_per_second", s.prefill->tokens_per_second);
  else w.field("prefill_tokens_per_second", nullptr);
  write_text_or_null(w, "prefill_unavailable", s.prefill_unavailable);
  w.field("prompt_tokens", s.prompt_tokens);
  w.field("tensor_parallel_efficiency", d.tensor_parallel_efficiency);
  w.end_object();
}

void write_cost(JsonWriter& w, const ServingCost& c, const Gpu& gpu) {
  const auto& price = gpu.cloud_usd_per_hour;
  w.begin_object("cost");
  if (c.energy) {
    const EnergyUse& e = *c.energy;
    w.begin_object("energy");
    w.field("basis", "board power at TDP for the whole hour (an upper bound); the host is not counted");
    w.field("kwh_per_hour", e.kwh_per_hour);
    w.field("tdp_w", e.tdp_w);
    w.field("usd_per_hour", e.usd_per_hour);
    w.field("usd_per_kwh", e.usd_per_kwh);
    write_range(w, "usd_per_million_tokens", e.usd_per_million_tokens);
    w.end_object();
  } else {
    w.field("energy", nullptr);
  }
  write_text_or_null(w, "energy_unavailable", c.energy_unavailable);
  if (price) w.field("price_date", price->date), w.field("price_source", price->source);
  else w.field("price_date", nullptr), w.field("price_source", nullptr);
  w.field("usd_per_hour", c.usd_per_hour);
  write_range(w, "usd_per_million_tokens", c.usd_per_million_tokens);
  w.end_object();
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
  auto spec = resolve_model(catalog, r, out.published_params, from_preset, out.params_source);
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
    return make_error("headroom", "must be a fraction between 0 and 0.9, got " + detail::fixed_text(r.headroom, 6));
  out.fit_headroom = o.engine == Engine::vllm ? std::max(r.headroom, 1.0 - o.gpu_util) : r.headroom;
  if (!r.gpu.empty()) {
    out.gpu = find_gpu(catalog.gpus, r.gpu);
    if (!out.gpu) return make_error("gpu", "unknown GPU \"" + r.gpu + "\" (not in the GPU catalog)");
    o.gpu_memory_bytes = out.gpu->usable_bytes();
    o.gpu_is_a100 = lookup_key(out.gpu->name).find("a100") != std::string::npos;
  }
  return out;
}

Explanation params_explanation(const ModelSpec& model, const ParamCounts& counts, std::uint64_t published,
                               const std::string& source) {
  detail::Text values;
  values << detail::Grouped{counts.total} << " parameters";
  if (counts.active != counts.total) values << ", " << detail::Grouped{counts.active} << " active per token";
  if (published != 0) values << " (published: " << detail::Grouped{published} << ")";
  return {"params",
          model.is_bare() ? "as given"
                          : "Σ of the architecture's tensors: token embeddings + layers × (attention + MLP or experts + "
                            "norms) + final norm + lm_head unless tied (+ a vision tower when present)",
          values.str(), source};
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
  if (rr.options.explain)
    report.estimate.explanations.push_back(
        params_explanation(report.model, report.estimate.params, rr.published_params, rr.params_source));
  if (report.context_source == "engine_default" && !report.model.is_bare())
    report.estimate.notes.push_back("No context given: " + std::to_string(rr.options.context_tokens) +
                                    " tokens assumed (the engine's default" +
                                    (report.model.max_context ? "; the model allows " + std::to_string(report.model.max_context)
                                                              : std::string()) + ").");
  if (report.context_source == "model_max")
    report.estimate.notes.push_back("No context given: vLLM sizes max_model_len to the model's maximum (" +
                                    std::to_string(rr.options.context_tokens) + " tokens); a shorter context lowers it.");

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
  // Training modes are answered by evaluate_training (evaluate_training.hpp); here only inference.
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
  // Speed and cost need the request's GPU; without one they are null.
  const ServingEstimate* serving = report.serving && !report.gpus.empty() ? &*report.serving : nullptr;
  const ServingSpeed* speed = serving && serving->speed ? &*serving->speed : nullptr;
  JsonWriter w;
  w.begin_object();
  w.begin_object("activations");
  w.field("attention_scores", e.attention_scores);
  w.field("logits", e.logits);
  w.end_object();
  w.begin_object("breakdown");
  w.field("activations", e.activations);
  w.field("allocator_reserve", e.allocator_reserve);
  w.field("kv_cache", e.kv_cache);
  w.field("overhead", e.overhead);
  w.field("total", e.total);
  w.field("weights", e.weights);
  w.end_object();
  if (serving) write_cost(w, serving->cost, *report.gpus.front().gpu);
  else w.field("cost", nullptr);
  if (speed) write_range(w, "decode_tokens_per_second", speed->decode.tokens_per_second);
  else w.field("decode_tokens_per_second", nullptr);
  detail::write_explanations(w, e.explanations);
  w.begin_array("gpus");
  for (const auto& f : report.gpus) detail::write_gpu_fit(w, *f.gpu, f.fit, f.free_bytes, f.gpus_needed);
  w.end_array();
  w.begin_object("inputs");
  w.field("attention", attention_name(e.attention));
  w.field("batch", e.batch);
  w.field("compute_dtype", dtype_info(e.weights_dtype).name);
  w.field("context", e.context_tokens);
  w.field("context_source", report.context_source);
  w.field("engine", engine_name(e.engine));
  w.field("expandable_segments", e.expandable_segments);
  w.field("headroom", report.headroom);
  w.field("kv_allocation", kv_allocation_name(e.kv_allocation.strategy));
  w.field("kv_dtype", kv_dtype_info(e.kv_dtype).name);
  w.field("weights", e.weights_format);
  w.end_object();
  w.begin_object("kv_allocation");
  w.field("avg_tokens", e.kv_allocation.avg_tokens);
  w.field("paged_bytes", e.kv_allocation.paged_bytes);
  w.field("static_bytes", e.kv_allocation.static_bytes);
  w.field("strategy", kv_allocation_name(e.kv_allocation.strategy));
  w.end_object();
  w.begin_object("kv_cache");
  w.field("bytes_per_token", e.kv.bytes_per_token);
  w.field("bytes_per_token_layer", e.kv.bytes_per_token_layer);
  w.field("dtype", kv_dtype_info(e.kv_dtype).name);
  w.field("mla_cache", e.kv.mla == MlaCache::latent ? "latent" : "per_head");
  w.field("window_cells", e.kv.window_cells);
  w.field("windowed_layers", e.kv.windowed_layers);
  w.end_object();
  if (e.llamacpp) {
    const auto& b = *e.llamacpp;
    w.begin_object("llamacpp");
    w.field("compute_buffer_bytes", b.compute_buffer_bytes);
    w.field("compute_buffer_other_bytes", b.compute_buffer_other_bytes);
    w.field("flash_attn", b.flash_attn);
    w.field("gpu_layers", b.gpu_layers);
    w.field("host_kv_bytes", b.host_kv_bytes);
    w.field("host_ram_bytes", b.host_ram_bytes);
    w.field("host_weights_bytes", b.host_weights_bytes);
    w.field("n_ctx", b.n_ctx);
    w.field("n_ubatch", b.n_ubatch);
    w.field("output_buffer_bytes", b.output_buffer_bytes);
    w.field("output_on_gpu", b.output_on_gpu);
    w.field("total_layers", b.total_layers);
    w.end_object();
  } else {
    w.field("llamacpp", nullptr);
  }
  detail::write_model(w, m, e.params, report.published_params);
  w.field("notes", e.notes);
  w.field("ok", true);
  if (speed && speed->prefill) write_range(w, "prefill_tokens_per_second", speed->prefill->tokens_per_second);
  else w.field("prefill_tokens_per_second", nullptr);
  w.begin_object("range");
  w.field("drivers", e.range.drivers);
  w.field("high", e.range.high);
  w.field("low", e.range.low);
  w.end_object();
  if (speed) write_speed(w, *speed);
  else w.field("speed", nullptr);
  if (serving) write_text_or_null(w, "speed_unavailable", serving->speed_unavailable);
  else w.field("speed_unavailable", nullptr);
  if (e.vllm) {
    const auto& v = *e.vllm;
    w.begin_object("vllm");
    w.field("block_bytes", v.block_bytes);
    w.field("block_size", kVllmBlockSize);
    w.field("budget_bytes", v.budget_bytes);
    w.field("concurrency_ratio", v.concurrency_ratio);
    w.field("cuda_graph_bytes", v.cuda_graph_bytes);
    w.field("gpu_memory_utilization", v.gpu_util);
    w.field("kv_capacity_bytes", v.kv_capacity_bytes);
    w.field("kv_capacity_tokens", v.kv_capacity_tokens);
    w.field("max_concurrency", v.max_concurrency);
    w.field("max_num_batched_tokens", v.max_num_batched_tokens);
    w.field("max_num_seqs", v.max_num_seqs);
    w.field("non_torch_bytes", v.non_torch_bytes);
    w.field("num_blocks", v.num_blocks);
    w.field("profile_activation_bytes", v.profile_activation_bytes);
    w.field("sequence_tokens", v.sequence_tokens);
    w.end_object();
  } else {
    w.field("vllm", nullptr);
  }
  const auto& wd = e.weight_detail;
  w.begin_object("weights");
  w.field("attention", wd.attention);
  w.field("embedding", wd.embedding);
  w.field("explanation", wd.explanation);
  w.field("format", e.weights_format);
  w.field("mlp", wd.mlp);
  w.field("norms", wd.norms);
  w.field("other", wd.other);
  w.field("output", wd.output);
  w.begin_array("storage");
  for (const auto& t : wd.storage) {
    w.begin_object();
    w.field("bytes", t.bytes);
    w.field("elements", t.elements);
    w.field("type", t.type);
    w.end_object();
  }
  w.end_array();
  w.field("total_bytes", wd.total);
  w.end_object();
  w.end_object();
  return w.take();
}

std::string error_to_json(const Error& error) {
  JsonWriter w;
  w.begin_object();
  w.begin_object("error");
  w.field("field", error.field);
  w.field("message", error.message);
  w.end_object();
  w.field("ok", false);
  w.end_object();
  return w.take();
}

std::string catalog_to_json(const Catalog& catalog) {
  JsonWriter w;
  w.begin_object();
  w.field("attention", {"sdpa", "eager"});
  w.begin_array("dtypes");
  for (const auto& d : all_dtypes()) {
    w.begin_object();
    w.field("bits", d.bits);
    w.field("name", d.name);
    w.field("summary", d.summary);
    w.end_object();
  }
  w.end_array();
  w.field("engines", {"transformers", "vllm", "llamacpp"});
  w.begin_array("gpus");
  for (const auto& g : catalog.gpus) {
    w.begin_object();
    detail::write_gpu_fields(w, g);
    w.end_object();
  }
  w.end_array();
  w.field("kv_allocation", {"static", "paged"});
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
    const auto counts = count_params(p.spec);
    w.begin_object();
    w.field("default_context", p.spec.default_context);
    w.field("hf_repo", p.hf_repo);
    w.field("id", p.spec.id);
    w.field("max_context", p.spec.max_context);
    w.field("name", p.spec.name);
    w.field("params_active", counts ? counts.value().active : 0);
    w.field("params_total", counts ? counts.value().total : 0);
    w.end_object();
  }
  w.end_array();
  // "inference" goes through evaluate(); the others through evaluate_training().
  w.field("modes", {"inference", "train", "lora", "qlora"});
  w.field("weight_formats", weight_format_examples());
  w.end_object();
  return w.take();
}

}  // namespace vramfit
