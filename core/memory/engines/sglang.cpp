#include "memory/engines/sglang.hpp"

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::round

#include "memory/in_use.hpp"
#include "memory/inference_steps.hpp"
#include "util/byte_math.hpp"
#include "util/units.hpp"

namespace vramfit {

std::optional<SglangRule> parse_sglang_version(std::string_view v) noexcept {
  const auto version = detail::parse_engine_version(v);
  if (!version) return std::nullopt;
  if (version->at_least(0, 5, 10)) return SglangRule::with_prefill_graphs;
  return version->at_least(0, 5, 3) ? SglangRule::by_gpu_memory : SglangRule::by_tp;
}

std::string_view sglang_rule_version(SglangRule rule) noexcept {
  switch (rule) {
    case SglangRule::by_tp: return kSglangVersionByTp;
    case SglangRule::by_gpu_memory: return kSglangVersionByGpuMemory;
    case SglangRule::with_prefill_graphs: return kSglangVersionPrefillGraphs;
  }
  return kSglangVersionPrefillGraphs;
}

namespace {

// ServerArgs._generate_prefill_cuda_graph_batch_sizes: 4..32 step 4, 48..256 step 16, 288..512 step 32,
// 576..1024 step 64, 1280..4096 step 256, then from 4608 in steps of 512, all up to max_bs.
std::uint64_t prefill_graph_size_count(std::uint64_t max_bs) noexcept {
  struct Run {
    std::uint64_t first, last, step;
  };
  static constexpr Run kRuns[] = {{4, 32, 4}, {48, 256, 16}, {288, 512, 32}, {576, 1024, 64}, {1280, 4096, 256}};
  std::uint64_t n = 0;
  for (const Run& r : kRuns)
    if (max_bs >= r.first) n += (std::min(max_bs, r.last) - r.first) / r.step + 1;
  if (max_bs >= 4608) n += (max_bs - 4608) / 512 + 1;
  return n;
}

}  // namespace

SglangDefaults sglang_defaults(SglangRule rule, std::uint64_t gpu_mib, std::uint64_t tp, std::uint64_t pp,
                               bool multimodal, bool mla) noexcept {
  SglangDefaults d;
  if (rule == SglangRule::by_tp) {  // ServerArgs.__post_init__ up to 0.5.2
    d.mem_fraction_static = tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
    if (multimodal) d.mem_fraction_static *= 0.95;
    d.chunked_prefill_size = gpu_mib < 25'000 ? 2048 : 8192;
    return d;
  }
  // ServerArgs._handle_gpu_memory_settings (0.5.3+), CUDA buckets by capacity; 0.5.10 splits off a < 90 GiB
  // bucket with the same values.
  const bool wide = tp >= 4;
  if (gpu_mib < 20 * 1024) d.chunked_prefill_size = 2048, d.cuda_graph_max_bs = 8;
  else if (gpu_mib < 35 * 1024) d.chunked_prefill_size = 2048, d.cuda_graph_max_bs = wide ? 80 : 24;
  else if (gpu_mib < 60 * 1024) d.chunked_prefill_size = 4096, d.cuda_graph_max_bs = wide ? 160 : 32;
  else if (gpu_mib < 160 * 1024) d.chunked_prefill_size = 8192, d.cuda_graph_max_bs = wide ? 512 : 256;
  else d.chunked_prefill_size = 16384, d.cuda_graph_max_bs = 512;
  // reserved = 512 + max(chunked_prefill_size, 2048) × 1.5 + tp × pp / 8 × 1024 + the graphs' reserve MiB, at
  // least 10 GiB on GPUs above 60 GiB. The graphs: cuda_graph_max_bs × 2 for decode; from 0.5.10 also 8 per
  // captured prefill size (the sizes up to chunked_prefill_size; up to 2048 for MLA), or 1.5 GiB for MLA.
  double graphs = static_cast<double>(d.cuda_graph_max_bs) * 2.0;
  if (rule == SglangRule::with_prefill_graphs) {
    d.prefill_graph_sizes = prefill_graph_size_count(mla ? 2048 : d.chunked_prefill_size);
    graphs += mla ? 1.5 * 1024.0 : static_cast<double>(d.prefill_graph_sizes) * 8.0;
  }
  double reserved = 512.0 + static_cast<double>(std::max<std::uint64_t>(d.chunked_prefill_size, 2048)) * 1.5 +
                    static_cast<double>(tp * pp) / 8.0 * 1024.0 + graphs;
  if (gpu_mib > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024.0);
  d.reserved_mib = static_cast<std::uint64_t>(reserved);
  const double mib = static_cast<double>(std::max<std::uint64_t>(gpu_mib, 1));
  d.mem_fraction_static = gpu_mib ? std::round((mib - reserved) / mib * 1000.0) / 1000.0 : 0.88;
  return d;
}

double sglang_vlm_fraction_factor(const ModelSpec::VisionTower& t) noexcept {
  const double layers = t.schema == "qwen" || !t.layers ? 24.0 : static_cast<double>(t.layers);
  const double hidden = t.hidden_size ? static_cast<double>(t.hidden_size) : 1024.0;
  const double ratio = layers * hidden * hidden / (24.0 * 1024.0 * 1024.0);
  return 0.95 * std::clamp(1.0 - 0.1 * (ratio - 1.0), 0.8, 1.05);
}

}  // namespace vramfit

namespace vramfit::detail {

// SGLang: the forward over one chunked-prefill chunk as the activation peak, and with a GPU the pool that
// mem_fraction_static leaves after the weights (ModelRunner.profile_max_num_token).
std::optional<Error> add_sglang_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                       const InferenceOptions& o, const KvLayout&) {
  const std::uint64_t gpu_mib = o.gpu_memory_bytes / kMiB;
  const SglangDefaults d = sglang_defaults(o.sglang_rule, gpu_mib, o.tensor_parallel, o.pipeline_parallel,
                                           spec.vision_params > 0, spec.has_latent());
  auto peak = activation_peak(spec, d.chunked_prefill_size, 1, w.compute_bytes, false);
  if (!peak) return make_error("context", message("error.inference.overflow_chunked",
                                                   "the chunked prefill's activations overflow 64 bits"));
  e.activations = ceil_div(peak->layer_bytes, o.tensor_parallel);
  w.peak_width = peak->width;
  const std::uint64_t ranks = o.tensor_parallel * o.pipeline_parallel;
  const std::uint64_t distributed = o.tensor_parallel * o.pipeline_parallel == 1 ? 0
                                    : o.gpu_has_nvlink                         ? kSglangDistributedNvlinkBytes
                                                                               : kSglangDistributedPcieBytes;
  const std::uint64_t weights = ceil_div(e.weights, ranks);
  std::uint64_t cell = kv_bytes_per_token_rank(spec, e.kv.bytes_per_token, o);
  // A draft's KV pool holds as many tokens as the target's, over its own layers; from sglang PR #23862 the pool's
  // size is solved for both (the per-token cost × (1 + draft layers / target layers)), before it the draft's pool
  // came out of the memory mem_fraction_static leaves.
  if (e.draft_detail && o.sglang_rule == SglangRule::with_prefill_graphs && e.kv.bytes_per_token)
    cell += detail::mul_div_ceil(e.draft_detail->kv_bytes_per_token, cell, e.kv.bytes_per_token).value_or(0);
  const std::uint64_t context_len = o.context_tokens;
  const std::uint64_t used = kCudaContextBytes + distributed;
  // Memory other programs hold is gone from what SGLang measures free before loading (pre_model_load_memory).
  const std::uint64_t free_at_start = free_beside(free_beside(o.gpu_memory_bytes, used), o.memory_in_use);
  // The old rule's 0.95 for a multimodal model is in d already; from 0.5.3 the factor follows the vision tower.
  const double vlm_factor = o.sglang_rule != SglangRule::by_tp && spec.vision_params && !spec.is_bare()
                                ? sglang_vlm_fraction_factor(spec.vision)
                                : 1.0;
  const double fraction = o.mem_fraction_static.value_or(d.mem_fraction_static * vlm_factor);
  const std::uint64_t slot = ceil_div(e.kv.state_bytes_per_sequence, ranks);  // mamba_cache_per_req on one rank
  SglangCapacity c = sglang_kv_capacity(o.gpu_memory_bytes ? free_at_start : 0, fraction, weights, cell,
                                                context_len, o.max_total_tokens.value_or(0), slot);
  c.rule = o.sglang_rule;
  c.engine_version = version_named(o.sglang_version, sglang_rule_version(o.sglang_rule));
  c.mem_fraction_default = !o.mem_fraction_static;
  c.vlm_factor = o.mem_fraction_static ? 1.0 : vlm_factor;
  c.reserved_mib = o.mem_fraction_static ? 0 : d.reserved_mib;
  c.chunked_prefill_size = d.chunked_prefill_size;
  c.driver_total_bytes = o.gpu_memory_bytes;
  c.distributed_bytes = distributed;
  c.tensor_parallel = o.tensor_parallel;
  c.pipeline_parallel = o.pipeline_parallel;
  e.sglang = c;
  return std::nullopt;
}

Explanation sglang_activations_explanation(const ModelSpec&, const InferenceOptions&, const InferenceEstimate& e,
                                           const Workings& w) {
  const SglangCapacity& s = *e.sglang;
  return {"activations",
          message("explain.activations.formula_sglang", "chunked_prefill_size × max live width × bytes / tensor parallel"),
          message("explain.activations.values_sglang", "{chunk} × {width} × {element} B / {tp} = {activations} B",
                  {arg::count("chunk", s.chunked_prefill_size), arg::count("width", w.peak_width),
                   arg::count("element", w.compute_bytes), arg::count("tp", s.tensor_parallel),
                   arg::count("activations", e.activations)}),
          message("explain.activations.source_sglang",
                  "SGLang prefills in chunks of chunked_prefill_size tokens (ServerArgs default by GPU memory); these "
                  "and the CUDA graphs live in the 1 − mem_fraction_static that SGLang keeps out of its pool")};
}

// What SGLang's pool figures assume, and what would stop SGLang from starting.
void add_sglang_notes(std::vector<Message>& notes, const ModelSpec&, const InferenceOptions& o,
                      const InferenceEstimate& e) {
  if (!e.sglang) return;
  const SglangCapacity& c = *e.sglang;
  if (!o.gpu_memory_bytes) {
    notes.push_back(message("sglang.choose_gpu",
                            "Choose a GPU to see SGLang's KV pool (max_total_num_tokens) and concurrency."));
    return;
  }
  if (o.gpu_total_nominal)
    notes.push_back(message("sglang.nominal_total",
                            "The catalog has no driver-reported total for this GPU: SGLang's free memory is taken "
                            "from its nominal memory, while the driver shows 1–3 % less, so the pool here is "
                            "somewhat high."));
  else
    notes.push_back(message("sglang.driver_total",
                            "SGLang's pool starts from what is free of {total_bytes}, {cuda_total}.",
                            {arg::gib("total_bytes", c.driver_total_bytes, 2),
                             arg::message("cuda_total", driver_total_clause(o.gpu_is_rocm))}));
  if (c.vlm_factor != 1.0)
    notes.push_back(message("sglang.vision_fraction",
                            "SGLang lowers its default mem_fraction_static for a multimodal model by a factor of "
                            "{factor} from its vision tower's size, leaving that memory for the image encoder's "
                            "work: counted in the pool here.",
                            {arg::fixed("factor", c.vlm_factor, 4)}));
  if (e.kv.windowed_layers && c.max_total_num_tokens)
    notes.push_back(message("sglang.hybrid_swa",
                            "SGLang's hybrid sliding-window pool (swa_full_tokens_ratio 0.8) is not modelled: every "
                            "layer is counted at full length per token, as with --disable-hybrid-swa-memory."));
  if (c.state_pool.slot_bytes && c.state_pool.max_mamba_cache_size)
    notes.push_back(message("sglang.state_pool",
                            "SGLang sets aside {slots} request slots of linear-attention state ({state_bytes}, "
                            "mamba_full_memory_ratio 0.9) before its KV pool, and runs at most {requests} requests "
                            "at once (3 slots each).",
                            {arg::count("slots", c.state_pool.max_mamba_cache_size),
                             arg::bytes("state_bytes", c.state_pool.allocated_bytes),
                             arg::count("requests", c.state_pool.max_running_requests)}));
  if (!c.max_total_num_tokens)
    notes.push_back(message("sglang.no_pool",
                            "SGLang would refuse to start (\"Not enough memory. Please try to increase "
                            "--mem-fraction-static.\"): the weights fill mem_fraction_static of the GPU."));
  else if (c.max_total_num_tokens < c.context_len)
    notes.push_back(message("sglang.pool_short",
                            "SGLang's pool holds {tokens} tokens, less than one {context}-token sequence: a prompt "
                            "that long is refused.",
                            {arg::count("tokens", c.max_total_num_tokens), arg::count("context", c.context_len)}));
}

}  // namespace vramfit::detail
