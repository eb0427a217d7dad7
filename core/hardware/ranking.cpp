#include "hardware/ranking.hpp"

#include <cmath>      // std::isfinite
#include <limits>     // std::numeric_limits

#include "hardware/cost.hpp"
#include "util/small_sort.hpp"
#include "util/units.hpp"

namespace vramfit {

namespace {

bool cheaper(const std::optional<double>& a, const std::optional<double>& b) noexcept {
  if (!a) return false;
  return !b || *a < *b;
}

}  // namespace

std::uint64_t bytes_per_gpu(const MemoryNeed& need, std::uint64_t count) noexcept {
  for (const auto& [n, bytes] : need.split_bytes)
    if (n == count) return bytes;
  const auto total = checked_add(ceil_div(need.shardable_bytes, count), need.per_gpu_bytes);
  return total ? *total : std::numeric_limits<std::uint64_t>::max();
}

Message tensor_parallel_problem(const SpeedModel& model, std::uint64_t count) {
  if (count <= 1) return {};
  if (model.num_attention_heads == 0 || model.num_kv_heads == 0)
    return message("ranking.tp_no_heads", "tensor parallel needs the attention head counts (a bare parameter count has none)");
  if (model.num_attention_heads % count != 0)
    return message("ranking.tp_heads", "tensor parallel {count} does not divide the {heads} attention heads",
                   {arg::digits("count", count), arg::digits("heads", model.num_attention_heads)});
  if (model.num_kv_heads % count != 0)
    return message("ranking.tp_kv_heads", "tensor parallel {count} does not divide the {heads} KV heads",
                   {arg::digits("count", count), arg::digits("heads", model.num_kv_heads)});
  return {};
}

namespace {

std::optional<Error> refuse_rank_options(const RankOptions& o) {
  if (!(o.headroom >= 0 && o.headroom < 1)) return make_error("headroom", message("ranking.headroom", "must be at least 0 and below 1"));
  if (o.max_usd_per_hour && !(std::isfinite(*o.max_usd_per_hour) && *o.max_usd_per_hour > 0))
    return make_error("budget_per_hour", message("ranking.budget_positive", "must be a positive number of dollars per hour"));
  if (o.counts.empty()) return make_error("counts", message("ranking.counts_empty", "needs at least one GPU count"));
  for (std::uint64_t c : o.counts)
    if (c == 0 || c > 1024)
      return make_error("counts", message("ranking.counts_range", "each GPU count must be between 1 and 1024"));
  return std::nullopt;
}

// The GPUs the options name, else the whole catalog.
Result<std::vector<const Gpu*>> gpus_to_rank(const std::vector<Gpu>& catalog, const RankOptions& o) {
  std::vector<const Gpu*> gpus;
  if (o.gpus.empty()) {
    for (const Gpu& g : catalog) gpus.push_back(&g);
  } else {
    for (const std::string& name : o.gpus) {
      const Gpu* g = find_gpu(catalog, name);
      if (!g)
        return make_error("gpus", message("ranking.unknown_gpu", "unknown GPU \"{given}\" (not in the GPU catalog)",
                                          {arg::text("given", name)}));
      gpus.push_back(g);
    }
  }
  return gpus;
}

// The memory in use on `gpu`: its own figure where the options give one.
const GpuInUse* in_use_on(const Gpu& gpu, const RankOptions& o) noexcept {
  for (const GpuInUse& u : o.in_use_by_gpu)
    if (u.gpu_id == gpu.id) return &u;
  return nullptr;
}

// `count` of `gpu`: whether the need fits, why the split cannot run, its price and its decode speed.
RankedConfig ranked_config(const SpeedModel& model, const MemoryNeed& need, const Gpu* gpu, std::uint64_t count,
                           const RankOptions& o) {
  RankedConfig c;
  c.gpu = gpu;
  c.count = count;
  const GpuInUse* own = in_use_on(*gpu, o);
  const std::uint64_t usable = usable_for(*gpu, own ? own->bytes : o.in_use_bytes);
  const std::uint64_t needed = bytes_per_gpu(need, count);
  c.fit = classify_fit(needed, usable, o.headroom);
  c.free_bytes = signed_difference(usable, needed);
  // vLLM and SGLang split each layer (tensor parallel); llama.cpp and transformers put whole layers on each
  // GPU, which the heads need not divide and which runs no faster than one GPU.
  if (count > 1 && gpu->one_per_machine())
    c.note = message("ranking.one_mac", "one GPU per machine: unified memory is not split across Macs here");
  // vLLM's CUDA build needs compute capability 7.0 or newer (docs.vllm.ai, getting_started/installation/gpu,
  // v0.7 to v0.14: "GPU: compute capability 7.0 or higher"): the Pascal cards (6.x) cannot run it.
  else if (o.speed.engine == Engine::vllm && gpu->vendor == "NVIDIA" && gpu->architecture == "Pascal")
    c.note = message("ranking.vllm_pascal",
                     "vLLM needs an NVIDIA GPU of compute capability 7.0 or newer (Volta and later); this one is "
                     "Pascal (6.x)");
  else if (count > 1 && o.speed.engine == Engine::ollama)
    c.note = message("ranking.ollama_several", "Ollama across several GPUs is not modelled");
  else if (own && !own->refusal.empty()) c.note = own->refusal;
  else if (kv_pool_engine(o.speed.engine)) c.note = tensor_parallel_problem(model, count);
  if (!c.note.empty()) c.fit = Fit::does_not_fit;  // the split itself is impossible
  c.fits = c.fit == Fit::fits;
  c.usd_per_hour = usd_per_hour(*gpu, count);
  c.purchase_usd = purchase_usd(*gpu, count);
  if (c.purchase_usd) c.purchase_date = gpu->street_usd->date;
  if (o.max_usd_per_hour && c.usd_per_hour) c.within_budget = *c.usd_per_hour <= *o.max_usd_per_hour;
  if (c.fits) {
    SpeedOptions s = o.speed;
    s.tensor_parallel = kv_pool_engine(o.speed.engine) ? count : 1;
    s.gpu_layers.reset();
    if (auto d = estimate_decode(model, *gpu, s)) {
      c.tokens_per_second = d.value().tokens_per_second;
      if (c.usd_per_hour) {
        auto at_fast = usd_per_million_tokens(*c.usd_per_hour, c.tokens_per_second->high);
        auto at_slow = usd_per_million_tokens(*c.usd_per_hour, c.tokens_per_second->low);
        if (at_fast && at_slow) c.usd_per_million_tokens = Range{at_fast.value(), at_slow.value()};
      }
    } else {
      c.note = d.error().message;
    }
  }
  return c;
}

// Fitting configurations first: priced ones by $/1M tokens (at the slow end), then by speed; the others by how
// little they miss.
void sort_configs(GpuRanking& rec) {
  detail::small_stable_sort(rec.configs, [](const RankedConfig& a, const RankedConfig& b) {
    if (a.fits != b.fits) return a.fits;
    if (!a.fits) return a.free_bytes > b.free_bytes;
    const std::optional<double> ca = a.usd_per_million_tokens ? std::optional(a.usd_per_million_tokens->high) : std::nullopt;
    const std::optional<double> cb = b.usd_per_million_tokens ? std::optional(b.usd_per_million_tokens->high) : std::nullopt;
    if (ca.has_value() != cb.has_value()) return ca.has_value();
    if (ca && *ca != *cb) return *ca < *cb;
    const double sa = a.tokens_per_second ? a.tokens_per_second->low : 0;
    const double sb = b.tokens_per_second ? b.tokens_per_second->low : 0;
    return sa > sb;
  });
}

// The cheapest to buy, to rent and per token, the fastest, and the hours after which buying pays.
void mark_best(GpuRanking& rec) {
  for (std::size_t i = 0; i < rec.configs.size(); ++i) {
    const RankedConfig& c = rec.configs[i];
    if (c.fits && cheaper(c.purchase_usd, rec.cheapest_to_buy ? rec.configs[*rec.cheapest_to_buy].purchase_usd
                                                              : std::nullopt))
      rec.cheapest_to_buy = i;
    if (!c.fits || !c.within_budget) continue;
    if (cheaper(c.usd_per_hour, rec.cheapest_per_hour ? rec.configs[*rec.cheapest_per_hour].usd_per_hour
                                                      : std::nullopt))
      rec.cheapest_per_hour = i;
    const auto per_million = [](const RankedConfig& r) {
      return r.usd_per_million_tokens ? std::optional(r.usd_per_million_tokens->high) : std::nullopt;
    };
    if (cheaper(per_million(c), rec.cheapest_per_million_tokens
                                    ? per_million(rec.configs[*rec.cheapest_per_million_tokens])
                                    : std::nullopt))
      rec.cheapest_per_million_tokens = i;
    if (c.tokens_per_second &&
        (!rec.fastest || c.tokens_per_second->low > rec.configs[*rec.fastest].tokens_per_second->low))
      rec.fastest = i;
  }
  if (rec.cheapest_to_buy && rec.cheapest_per_hour)
    if (auto hours = break_even_hours(*rec.configs[*rec.cheapest_to_buy].purchase_usd,
                                      *rec.configs[*rec.cheapest_per_hour].usd_per_hour))
      rec.break_even_hours = hours.value();
}

}  // namespace

Result<GpuRanking> rank_gpus(const SpeedModel& model, const MemoryNeed& need, const std::vector<Gpu>& catalog,
                                 const RankOptions& o) {
  if (auto error = refuse_rank_options(o)) return *error;
  auto gpus = gpus_to_rank(catalog, o);
  if (!gpus) return gpus.error();
  GpuRanking rec;
  for (const Gpu* gpu : gpus.value())
    for (std::uint64_t count : o.counts) rec.configs.push_back(ranked_config(model, need, gpu, count, o));
  sort_configs(rec);
  mark_best(rec);
  return rec;
}

std::optional<std::size_t> biggest_that_fits(const std::vector<ModelCandidate>& candidates,
                                             std::uint64_t usable_bytes, double headroom) noexcept {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const ModelCandidate& c = candidates[i];
    if (classify_fit(c.total_bytes, usable_bytes, headroom) != Fit::fits) continue;
    if (!best) {
      best = i;
      continue;
    }
    const ModelCandidate& b = candidates[*best];
    if (c.params > b.params || (c.params == b.params && c.bits_per_weight > b.bits_per_weight)) best = i;
  }
  return best;
}

}  // namespace vramfit
