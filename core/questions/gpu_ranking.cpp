#include "questions/gpu_ranking.hpp"

#include <algorithm>  // std::any_of
#include <cmath>      // std::isfinite
#include <string>     // std::string, std::to_string

#include "util/number_text.hpp"
#include "json/report_json.hpp"
#include "util/units.hpp"  // signed_difference

namespace vramfit {

using detail::fixed_text;
using detail::JsonWriter;
using detail::write_range;

namespace {

std::string config_name(const RankedConfig& c) { return std::to_string(c.count) + " × " + c.gpu->name; }

// The GPUs to rank: the request's list, else its single GPU, else the catalog. Under a budget only
// priced GPUs can be shown to be within it; the rest are counted for a note.
Result<std::vector<std::string>> gpus_to_rank(const Catalog& catalog, const Request& r, std::size_t& unpriced) {
  std::vector<std::string> names = !r.gpus.empty() ? r.gpus : r.gpu.empty() ? std::vector<std::string>{}
                                                                             : std::vector<std::string>{r.gpu};
  if (!r.budget_per_hour) return names;
  std::vector<const Gpu*> gpus;
  if (names.empty()) {
    for (const Gpu& g : catalog.gpus) gpus.push_back(&g);
  } else {
    for (const std::string& name : names) {
      const Gpu* g = find_gpu(catalog.gpus, name);
      if (!g) return make_error("gpus", "unknown GPU \"" + name + "\" (not in the GPU catalog)");
      gpus.push_back(g);
    }
  }
  std::vector<std::string> priced;
  for (const Gpu* g : gpus) {
    if (usd_per_hour(*g, 1)) priced.push_back(g->id);
    else ++unpriced;
  }
  return priced;
}

void add_ranking_notes(GpuRankingReport& out, std::size_t unpriced) {
  const GpuRanking& rec = out.ranking;
  const RankedConfig* cheapest_fit = nullptr;  // ignoring the budget
  const RankedConfig* closest_miss = nullptr;
  for (const RankedConfig& c : rec.configs) {
    if (c.fits && c.usd_per_hour && (!cheapest_fit || *c.usd_per_hour < *cheapest_fit->usd_per_hour)) cheapest_fit = &c;
    if (!c.fits && c.note.empty() && (!closest_miss || c.free_bytes > closest_miss->free_bytes)) closest_miss = &c;
  }
  const bool any_fits = std::any_of(rec.configs.begin(), rec.configs.end(), [](const RankedConfig& c) { return c.fits; });
  const double budget = out.options.max_usd_per_hour.value_or(0);
  if (unpriced > 0)
    out.notes.push_back(std::to_string(unpriced) + " GPU type(s) without a catalog price are left out: their cost "
                        "cannot be checked against the budget.");
  if (rec.configs.empty()) {
    out.notes.push_back("No GPU to rank: none of the chosen GPUs has a catalog price to check against $" +
                        fixed_text(budget, 2) + "/h.");
  } else if (!any_fits) {
    std::string note = "No configuration fits within the " + fixed_text(out.options.headroom * 100, 0) + " % headroom";
    if (closest_miss)
      note += "; the closest, " + config_name(*closest_miss) + ", is short by " +
              fixed_text(static_cast<double>(-closest_miss->free_bytes) / static_cast<double>(kGiB), 1) + " GiB per GPU";
    out.notes.push_back(note + ".");
  } else if (out.options.max_usd_per_hour && !rec.cheapest_per_hour) {
    std::string note = "Nothing that fits costs at most $" + fixed_text(budget, 2) + "/h";
    if (cheapest_fit)
      note += "; the cheapest that fits is " + config_name(*cheapest_fit) + " at $" + fixed_text(*cheapest_fit->usd_per_hour, 2) + "/h";
    out.notes.push_back(note + ".");
  } else if (!rec.cheapest_per_hour) {
    out.notes.push_back("None of the configurations that fit has a catalog price, so there is no cheapest pick.");
  }
}

void write_pick(JsonWriter& w, const char* key, const GpuRanking& rec, const std::optional<std::size_t>& index) {
  if (!index) return w.field(key, nullptr);
  const RankedConfig& c = rec.configs[*index];
  w.begin_object(key);
  w.field("count", c.count);
  w.field("gpu", c.gpu->id);
  w.field("index", *index);
  w.field("name", c.gpu->name);
  w.end_object();
}

}  // namespace

Result<GpuRankingReport> rank_gpus_for(const Catalog& catalog, const Request& request) {
  if (request.gpu_layers)
    return make_error("gpu_layers", "the ranking keeps every layer on the GPUs; leave out -ngl (gpu_layers) to rank");
  if (request.budget_per_hour && !(std::isfinite(*request.budget_per_hour) && *request.budget_per_hour > 0))
    return make_error("budget_per_hour", "must be a positive number of dollars per hour");
  // One estimate for every GPU: without a GPU, vLLM's KV cache is what the batch needs, not the budget
  // it would fill.
  Request r = request;
  r.gpu.clear();
  auto resolved = resolve_request(catalog, r);
  if (!resolved) return resolved.error();
  const ResolvedRequest& rr = resolved.value();
  auto estimate = estimate_inference(rr.model, rr.options);
  if (!estimate) return estimate.error();

  GpuRankingReport out;
  out.model_id = rr.model.id;
  out.model_name = rr.model.name;
  out.estimate = std::move(estimate).value();
  out.need = memory_need(out.estimate);
  out.options.headroom = rr.fit_headroom;
  out.options.max_usd_per_hour = request.budget_per_hour;

  std::size_t unpriced = 0;
  auto gpus = gpus_to_rank(catalog, request, unpriced);
  if (!gpus) return gpus.error();
  out.options.gpus = std::move(gpus).value();
  auto speed = speed_options_for(rr.model, out.estimate, request.serving);
  if (!speed) return speed.error();
  out.options.speed = speed.value();
  auto model = speed_model_from(rr.model, out.estimate.weight_detail);
  if (!model) return model.error();

  // Under a budget that leaves no priced GPU, rank nothing (an empty list would mean the whole catalog).
  if (!(request.budget_per_hour && out.options.gpus.empty())) {
    auto ranking = rank_gpus(model.value(), out.need, catalog.gpus, out.options);
    if (!ranking) return ranking.error();
    out.ranking = std::move(ranking).value();
  }
  add_ranking_notes(out, unpriced);
  return out;
}

std::string gpu_ranking_report_to_json(const GpuRankingReport& report) {
  const InferenceEstimate& e = report.estimate;
  const RankOptions& o = report.options;
  const GpuRanking& rec = report.ranking;
  JsonWriter w;
  w.begin_object();
  write_pick(w, "cheapest_per_hour", rec, rec.cheapest_per_hour);
  write_pick(w, "cheapest_per_million_tokens", rec, rec.cheapest_per_million_tokens);
  write_pick(w, "fastest", rec, rec.fastest);
  w.begin_object("inputs");
  w.field("batch", e.batch);
  w.field("budget_per_hour", o.max_usd_per_hour);
  w.field("compute_path", compute_path_name(o.speed.compute));
  w.field("context", e.context_tokens);
  w.field("counts", o.counts);
  w.field("engine", engine_name(e.engine));
  w.field("headroom", o.headroom);
  w.field("weights", e.weights_format);
  w.end_object();
  w.begin_object("memory");
  w.field("per_gpu_bytes", report.need.per_gpu_bytes);
  w.field("shardable_bytes", report.need.shardable_bytes);
  w.field("total_bytes", e.total);
  w.end_object();
  w.begin_object("model");
  w.field("id", report.model_id);
  w.field("name", report.model_name);
  w.end_object();
  w.field("notes", report.notes);
  w.field("ok", true);
  w.begin_array("recommendations");
  for (const RankedConfig& c : rec.configs) {
    w.begin_object();
    w.field("count", c.count);
    w.field("fit", fit_name(c.fit));
    w.field("fits", c.fits);
    w.field("free_bytes", c.free_bytes);
    w.field("gpu", c.gpu->id);
    w.field("name", c.gpu->name);
    detail::write_text_or_null(w, "note", c.note);
    write_range(w, "tokens_per_second", c.tokens_per_second);
    w.field("usd_per_hour", c.usd_per_hour);
    write_range(w, "usd_per_million_tokens", c.usd_per_million_tokens);
    w.field("within_budget", c.within_budget);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

std::vector<std::string> biggest_formats(Engine engine) {
  switch (engine) {
    case Engine::llamacpp: return {"bf16", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k"};
    case Engine::vllm: return {"bf16", "fp8", "int8", "awq-4bit-128g"};
    case Engine::transformers: return {"bf16", "bnb-int8", "nf4"};
  }
  return {"bf16"};
}

Result<BiggestReport> biggest_for(const Catalog& catalog, const Request& request) {
  if (request.gpu.empty()) return make_error("gpu", "name the card the model should run on (--gpu NAME)");
  if (catalog.models.empty()) return make_error("model", "the catalog has no presets");
  BiggestReport out;
  out.gpu = find_gpu(catalog.gpus, request.gpu);
  if (!out.gpu) return make_error("gpu", "unknown GPU \"" + request.gpu + "\" (not in the GPU catalog)");
  const auto engine = parse_engine(request.engine);
  if (!engine) return make_error("engine", "unknown engine \"" + request.engine + "\"; allowed: " + std::string(kEngineNames));
  out.formats = request.weights.empty() ? biggest_formats(*engine) : std::vector<std::string>{request.weights};
  out.context = request.context.value_or(kLlamaDefaultCtx);
  out.batch = request.batch;
  out.engine = std::string(engine_name(*engine));
  out.headroom = request.headroom;
  if (!request.context)
    out.notes.push_back("No context given: every model is sized for " + std::to_string(out.context) + " tokens.");

  Request base = request;
  base.config_json.clear();
  base.params = 0;
  base.imported.reset();
  base.gpu_layers.reset();
  base.context = out.context;
  // Inputs other than the model (weights, KV dtype, headroom, ...) are checked once, on the first preset.
  base.model = catalog.models.front().spec.id;
  base.weights = out.formats.front();
  auto checked = resolve_request(catalog, base);
  if (!checked) return checked.error();
  out.headroom = checked.value().fit_headroom;  // vLLM: bounded by gpu_memory_utilization too

  const std::uint64_t usable = out.gpu->usable_bytes();
  std::vector<std::vector<std::size_t>> per_format(out.formats.size());
  for (const ModelPreset& preset : catalog.models) {
    for (std::size_t f = 0; f < out.formats.size(); ++f) {
      Request c = base;
      c.model = preset.spec.id;
      c.weights = out.formats[f];
      auto rr = resolve_request(catalog, c);
      if (!rr) continue;
      auto e = estimate_inference(rr.value().model, rr.value().options);
      if (!e || e.value().weight_detail.params == 0) continue;  // a format this model cannot be stored in
      const InferenceEstimate& est = e.value();
      const double bits = 8.0 * static_cast<double>(est.weight_detail.total) / static_cast<double>(est.weight_detail.params);
      per_format[f].push_back(out.candidates.size());
      out.candidates.push_back({preset.spec.id, est.weights_format, est.params.total, bits, est.total});
      out.free_bytes.push_back(signed_difference(usable, est.total));
    }
  }
  out.biggest = biggest_that_fits(out.candidates, usable, out.headroom);
  for (const auto& indices : per_format) {
    std::vector<ModelCandidate> subset;
    for (std::size_t i : indices) subset.push_back(out.candidates[i]);
    if (auto best = biggest_that_fits(subset, usable, out.headroom)) out.by_format.push_back(indices[*best]);
  }
  if (!out.biggest)
    out.notes.push_back("No preset fits " + out.gpu->name + " within the " + fixed_text(out.headroom * 100, 0) +
                        " % headroom in any of the formats tried; try a shorter context or a smaller format.");
  return out;
}

std::string biggest_report_to_json(const BiggestReport& report) {
  JsonWriter w;
  auto candidate = [&](const char* key, std::size_t i) {
    const ModelCandidate& c = report.candidates[i];
    w.begin_object(key);
    w.field("bits_per_weight", c.bits_per_weight);
    w.field("free_bytes", report.free_bytes[i]);
    w.field("model", c.model);
    w.field("params", c.params);
    w.field("total_bytes", c.total_bytes);
    w.field("weights", c.format);
    w.end_object();
  };
  w.begin_object();
  w.field("batch", report.batch);
  if (report.biggest) candidate("biggest", *report.biggest);
  else w.field("biggest", nullptr);
  w.begin_array("by_format");
  for (std::size_t i : report.by_format) candidate(nullptr, i);
  w.end_array();
  w.field("candidates_checked", report.candidates.size());
  w.field("context", report.context);
  w.field("engine", report.engine);
  w.field("formats", report.formats);
  w.begin_object("gpu");
  w.field("id", report.gpu->id);
  w.field("name", report.gpu->name);
  w.field("usable_bytes", report.gpu->usable_bytes());
  w.end_object();
  w.field("headroom", report.headroom);
  w.field("notes", report.notes);
  w.field("ok", true);
  w.end_object();
  return w.take();
}

std::string gpu_ranking_json(const Catalog& catalog, std::string_view request_json) {
  auto request = request_from_json(request_json);
  if (!request) return error_to_json(request.error());
  auto report = rank_gpus_for(catalog, request.value());
  if (!report) return error_to_json(report.error());
  return gpu_ranking_report_to_json(report.value());
}

std::string biggest_json(const Catalog& catalog, std::string_view request_json) {
  auto request = request_from_json(request_json);
  if (!request) return error_to_json(request.error());
  auto report = biggest_for(catalog, request.value());
  if (!report) return error_to_json(report.error());
  return biggest_report_to_json(report.value());
}

}  // namespace vramfit
