#include "questions/gpu_ranking.hpp"

#include <algorithm>  // std::any_of, std::find
#include <cmath>      // std::isfinite, std::llround
#include <string>     // std::string, std::to_string

#include "questions/other_models.hpp"  // others_on_card
#include "util/number_text.hpp"
#include "util/units.hpp"

namespace vramfit {


namespace {

std::string config_name(const RankedConfig& c) { return std::to_string(c.count) + " × " + c.gpu->name; }

// The GPUs to rank: the request's list, else its single GPU, else the catalog. Under a budget only
// priced GPUs can be shown to be within it; the rest are counted for a note.
// The names as people write them are resolved here, each short form said in `notes`; the ranking gets ids.
Result<std::vector<std::string>> gpus_to_rank(const Catalog& catalog, const Request& r, std::size_t& unpriced,
                                              std::vector<Message>& notes) {
  const bool listed = !r.gpus.empty();
  const std::vector<std::string> names = listed ? r.gpus : r.gpu.empty() ? std::vector<std::string>{}
                                                                          : std::vector<std::string>{r.gpu};
  std::vector<const Gpu*> gpus;
  for (const std::string& name : names) {
    auto found = resolve_gpu(catalog.gpus, name, listed ? "gpus" : "gpu");
    if (!found) return found.error();
    if (!found.value().note.empty()) notes.push_back(found.value().note);
    gpus.push_back(found.value().gpu);
  }
  if (!r.budget_per_hour) {
    std::vector<std::string> ids;
    for (const Gpu* g : gpus) ids.push_back(g->id);
    return ids;
  }
  if (names.empty())
    for (const Gpu& g : catalog.gpus) gpus.push_back(&g);
  std::vector<std::string> priced;
  for (const Gpu* g : gpus) {
    if (usd_per_hour(*g, 1)) priced.push_back(g->id);
    else ++unpriced;
  }
  return priced;
}

// MLX runs on Apple GPUs only (Metal), vLLM and SGLang on none of them: the ranking keeps the GPUs asked for, or
// every GPU in the catalog, that the engine runs on; a GPU named and left out is named in a note.
std::optional<Error> keep_engine_gpus(const Catalog& catalog, const Request& r, Engine engine,
                                      std::vector<std::string>& ids, std::vector<Message>& notes) {
  const bool macs = engine_traits(engine).metal_only;
  if (runs_on_every_gpu(engine)) return std::nullopt;
  const bool all = ids.empty() && !r.budget_per_hour;
  std::vector<std::string> kept;
  for (const Gpu& g : catalog.gpus)
    if (g.is_apple() == macs && (all || std::find(ids.begin(), ids.end(), g.id) != ids.end()))
      kept.push_back(g.id);
  if (!all) {
    std::string left_out;
    for (const std::string& id : ids)
      if (std::find(kept.begin(), kept.end(), id) == kept.end()) left_out += (left_out.empty() ? "" : ", ") + id;
    if (!left_out.empty() && !kept.empty())
      notes.push_back(message("ranking.engine_left_out", "Left out, as {engine} does not run on them: {gpus}.",
                              {arg::text("engine", engine_title(engine)), arg::text("gpus", left_out)}));
  }
  if (!macs && !all) {  // the GPUs named keep their order, which breaks the ranking's ties
    std::erase_if(ids, [&](const std::string& id) { return std::find(kept.begin(), kept.end(), id) == kept.end(); });
    kept = ids;
  }
  if (kept.empty() && !all && !r.budget_per_hour)  // under a budget an empty list ranks nothing
    return make_error(r.gpus.empty() ? "gpu" : "gpus",
                      macs ? message("mlx.rank_macs", "MLX is modelled on Apple GPUs only; name at least one Mac")
                           : message("engine.rank_no_macs",
                                     "{engine} has no Apple GPU backend; name at least one GPU that is not a Mac",
                                     {arg::text("engine", engine_title(engine))}));
  ids = std::move(kept);
  return std::nullopt;
}

// Buying against renting: the cheapest configuration to buy and how many hours of the cheapest rented one cost as
// much. A street price is one dated figure (often the launch price), so the amount is "about" and its date is said.
void add_buy_note(GpuRankingReport& out) {
  const GpuRanking& rec = out.ranking;
  if (!rec.cheapest_to_buy) return;
  const RankedConfig& buy = rec.configs[*rec.cheapest_to_buy];
  const MessageArg config = arg::text("config", config_name(buy));
  const MessageArg usd = arg::count("usd", static_cast<std::uint64_t>(std::llround(*buy.purchase_usd)));
  const MessageArg date = arg::text("date", buy.purchase_date);
  if (rec.break_even_hours) {
    const RankedConfig& rent = rec.configs[*rec.cheapest_per_hour];
    out.notes.push_back(message("ranking.buy_break_even",
                                "Buying {config} for about ${usd} (the catalog's price as of {date}) costs as much as "
                                "{hours} hours of renting {rented} at ${rented_usd}/h. Electricity, the rest of the "
                                "computer and what the cards sell for later are not counted.",
                                {config, usd, date,
                                 arg::count("hours", static_cast<std::uint64_t>(std::llround(*rec.break_even_hours))),
                                 arg::text("rented", config_name(rent)), arg::fixed("rented_usd", *rent.usd_per_hour, 2)}));
  } else {
    out.notes.push_back(message("ranking.buy_no_rent",
                                "The cheapest to buy that fits is {config} for about ${usd} (the catalog's price as of "
                                "{date}); there is no cheapest per hour to compare it with.",
                                {config, usd, date}));
  }
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
    out.notes.push_back(message("ranking.unpriced",
                                "{n} GPU type(s) without a catalog price are left out: their cost cannot be checked "
                                "against the budget.",
                                {arg::digits("n", unpriced)}));
  if (rec.configs.empty()) {
    out.notes.push_back(message("ranking.none_priced",
                                "No GPU to rank: none of the chosen GPUs has a catalog price to check against ${usd}/h.",
                                {arg::fixed("usd", budget, 2)}));
  } else if (!any_fits) {
    const MessageArg headroom = arg::fixed("percent", out.options.headroom * 100, 0);
    if (closest_miss)
      out.notes.push_back(message("ranking.none_fits_closest",
                                  "No configuration fits within the {percent} % headroom; the closest, {config}, is "
                                  "short by {short_bytes} per GPU.",
                                  {headroom, arg::text("config", config_name(*closest_miss)),
                                   arg::gib("short_bytes", static_cast<std::uint64_t>(-closest_miss->free_bytes), 1)}));
    else
      out.notes.push_back(message("ranking.none_fits", "No configuration fits within the {percent} % headroom.", {headroom}));
  } else if (out.options.max_usd_per_hour && !rec.cheapest_per_hour) {
    const MessageArg usd = arg::fixed("usd", budget, 2);
    if (cheapest_fit)
      out.notes.push_back(message("ranking.over_budget_cheapest",
                                  "Nothing that fits costs at most ${usd}/h; the cheapest that fits is {config} at "
                                  "${config_usd}/h.",
                                  {usd, arg::text("config", config_name(*cheapest_fit)),
                                   arg::fixed("config_usd", *cheapest_fit->usd_per_hour, 2)}));
    else
      out.notes.push_back(message("ranking.over_budget", "Nothing that fits costs at most ${usd}/h.", {usd}));
  } else if (!rec.cheapest_per_hour) {
    out.notes.push_back(message("ranking.no_cheapest",
                                "None of the configurations that fit has a catalog price, so there is no cheapest pick."));
  }
  add_buy_note(out);
}

// Over several GPUs the answer for that setup splits as its engine does (evaluate's use_gpu_count): the busiest GPU's
// share is rarely the even split's (whole layers, the output layer on the last GPU, a compute buffer on each), so a
// configuration is ranked by the figure its own answer gives. The split does not depend on the card, so one estimate
// per count serves every GPU; a count the engine cannot split (heads that do not divide, Ollama) keeps the even
// split, and the ranking's note says why it is ruled out.
void add_split_bytes(const Catalog& catalog, const Request& request, const ResolvedRequest& rr, MemoryNeed& need) {
  if (!rr.devices.empty()) return;
  for (const std::uint64_t count : RankOptions{}.counts) {
    if (count < 2) continue;
    Request r = request;
    r.gpu.clear();
    r.gpus.clear();
    r.gpu_count = count;
    if (r.tp * r.pp != 1) r.tp = 1, r.pp = 1;
    auto resolved = resolve_request(catalog, r);
    if (!resolved) continue;
    resolved.value().options.explain = false;
    auto e = estimate_inference(resolved.value().model, resolved.value().options);
    if (e && e.value().per_gpu.gpus == count) need.split_bytes.emplace_back(count, e.value().per_gpu.total);
  }
}

// Each GPU type ranked meets the other vLLM or SGLang servers as they would be on it (others_on_card), each count of
// it alike: they are sized for the request's GPU count, as on the request's GPU.
void add_in_use_by_gpu(const Catalog& catalog, const ResolvedRequest& rr, RankOptions& o, OthersByCard& sized) {
  if (rr.other_scenarios.empty()) return;
  const auto add = [&](const Gpu& gpu) {
    const auto& on = others_on_card(rr, gpu, sized);
    if (on) o.in_use_by_gpu.push_back({gpu.id, on->in_use_bytes, on->refusal});
  };
  if (o.gpus.empty())
    for (const Gpu& gpu : catalog.gpus) add(gpu);
  for (const std::string& id : o.gpus)
    if (const Gpu* gpu = find_gpu(catalog.gpus, id)) add(*gpu);
}

}  // namespace

Result<GpuRankingReport> rank_gpus_for(const Catalog& catalog, const Request& request) {
  if (request.gpu_layers)
    return make_error("gpu_layers", message("ranking.gpu_layers", "the ranking keeps every layer on the GPUs; leave out -ngl "
                                                              "(gpu_layers) to rank"));
  if (request.budget_per_hour && !(std::isfinite(*request.budget_per_hour) && *request.budget_per_hour > 0))
    return make_error("budget_per_hour", message("ranking.budget_positive", "must be a positive number of dollars per hour"));
  // One estimate for every GPU: without a GPU, vLLM's KV cache is what the batch needs, not the budget
  // it would fill. Other vLLM or SGLang servers are sized on the request's GPU first, as they need one
  // (resolve_other_models), and again on each GPU ranked (add_in_use_by_gpu).
  Request r = request;
  if (!kv_pool_engine(r.engine) || r.also.empty()) r.gpu.clear();
  auto resolved = resolve_request(catalog, r);
  if (!resolved) return resolved.error();
  const ResolvedRequest rr = without_gpu(std::move(resolved).value());
  auto estimate = estimate_inference(rr.model, rr.options);
  if (!estimate) return estimate.error();
  return rank_gpus_for(catalog, request, rr, estimate.value());
}

Result<GpuRankingReport> rank_gpus_for(const Catalog& catalog, const Request& request, const ResolvedRequest& rr,
                                       const InferenceEstimate& estimate, OthersByCard* others_sized) {
  if (request.gpu_layers)
    return make_error("gpu_layers", message("ranking.gpu_layers", "the ranking keeps every layer on the GPUs; leave out -ngl "
                                                              "(gpu_layers) to rank"));
  if (request.budget_per_hour && !(std::isfinite(*request.budget_per_hour) && *request.budget_per_hour > 0))
    return make_error("budget_per_hour", message("ranking.budget_positive", "must be a positive number of dollars per hour"));
  GpuRankingReport out;
  out.model_id = rr.model.id;
  out.model_name = rr.model.name;
  out.estimate = estimate;
  out.need = memory_need(out.estimate);
  add_split_bytes(catalog, request, rr, out.need);
  out.options.headroom = rr.fit_headroom;
  out.options.in_use_bytes = rr.options.memory_in_use;
  out.options.max_usd_per_hour = request.budget_per_hour;

  std::size_t unpriced = 0;
  auto gpus = gpus_to_rank(catalog, request, unpriced, out.notes);
  if (!gpus) return gpus.error();
  out.options.gpus = std::move(gpus).value();
  if (auto error = keep_engine_gpus(catalog, request, estimate.engine, out.options.gpus, out.notes)) return *error;
  OthersByCard own_sizing;
  add_in_use_by_gpu(catalog, rr, out.options, others_sized ? *others_sized : own_sizing);
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

std::vector<std::string> biggest_formats(Engine engine) {
  switch (engine) {
    case Engine::llamacpp:
    case Engine::ollama: return {"bf16", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k"};
    case Engine::vllm:
    case Engine::sglang: return {"bf16", "fp8", "int8", "awq-4bit-128g"};
    case Engine::transformers: return {"bf16", "bnb-int8", "nf4"};
    case Engine::mlx: return {"bf16", "mlx-8bit", "mlx-6bit", "mlx-4bit"};
  }
  return {"bf16"};
}

Result<BiggestReport> biggest_for(const Catalog& catalog, const Request& request) {
  if (request.gpu.empty()) return make_error("gpu", message("biggest.needs_gpu", "name the card the model should run on"));
  if (catalog.models.empty()) return make_error("model", message("biggest.no_presets", "the catalog has no presets"));
  BiggestReport out;
  auto found = resolve_gpu(catalog.gpus, request.gpu, "gpu");
  if (!found) return found.error();
  out.gpu = found.value().gpu;
  if (!found.value().note.empty()) out.notes.push_back(found.value().note);
  const Engine engine = request.engine;
  out.formats = request.weights.empty() ? biggest_formats(engine) : std::vector<std::string>{request.weights};
  out.context = request.context.value_or(kLlamaDefaultCtx);
  out.batch = request.batch;
  out.engine = std::string(engine_name(engine));
  out.headroom = request.headroom;
  if (!request.context)
    out.notes.push_back(message("biggest.context_default", "No context given: every model is sized for {context} tokens.",
                                {arg::digits("context", out.context)}));

  Request base = request;
  base.config_json.clear();
  base.quant_config_json.clear();
  base.params = 0;
  base.imported.reset();
  base.gpu_layers.reset();
  base.context = out.context;
  // Inputs other than the model (weights, KV dtype, headroom, ...) are checked once, on the first preset.
  base.model = catalog.models.front().id;
  base.weights = out.formats.front();
  auto checked = resolve_request(catalog, base);
  if (!checked) return checked.error();
  out.headroom = checked.value().fit_headroom;  // vLLM: bounded by gpu_memory_utilization too

  const std::uint64_t usable = usable_for(*out.gpu, checked.value().options.memory_in_use);
  std::vector<std::vector<std::size_t>> per_format(out.formats.size());
  for (const ModelPreset& preset : catalog.models) {
    for (std::size_t f = 0; f < out.formats.size(); ++f) {
      Request c = base;
      c.model = preset.id;
      c.weights = out.formats[f];
      auto rr = resolve_request(catalog, c);
      if (!rr) continue;
      auto e = estimate_inference(rr.value().model, rr.value().options);
      if (!e || e.value().weight_detail.params == 0) continue;  // a format this model cannot be stored in
      const InferenceEstimate& est = e.value();
      const double bits = 8.0 * static_cast<double>(est.weight_detail.total) / static_cast<double>(est.weight_detail.params);
      per_format[f].push_back(out.candidates.size());
      out.candidates.push_back({preset.id, est.weights_format, est.params.total, bits, est.total});
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
    out.notes.push_back(message("biggest.none_fits",
                                "No preset fits {gpu} within the {headroom} % headroom in any of the formats tried; "
                                "try a shorter context or a smaller format.",
                                {arg::text("gpu", out.gpu->name), arg::fixed("headroom", out.headroom * 100, 0)}));
  return out;
}

}  // namespace vramfit
