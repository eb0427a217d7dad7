#include "memory/engines/vllm.hpp"

#include <algorithm>  // std::find, std::find_if, std::min, std::max
#include <cmath>      // std::floor
#include <iterator>   // std::begin, std::end
#include <string>     // std::string
#include <vector>     // std::vector

#include "memory/engines/vllm_weights.hpp"
#include "memory/inference_steps.hpp"
#include "util/byte_math.hpp"
#include "util/units.hpp"

namespace vramfit {

std::optional<VllmRule> parse_vllm_version(std::string_view v) noexcept {
  const auto version = detail::parse_engine_version(v);
  if (!version || !version->at_least(0, 9, 2) || version->at_least(0, 28, 0)) return std::nullopt;
  if (version->at_least(0, 27, 0)) return VllmRule::hybrid_prefix_caching;
  if (version->at_least(0, 25, 0)) return VllmRule::runner_v2;
  return version->at_least(0, 21, 0) ? VllmRule::graphs_inside : VllmRule::graphs_outside;
}

bool vllm_version_after_modelled(std::string_view v) noexcept {
  const auto version = detail::parse_engine_version(v);
  return version && version->at_least(0, 28, 0);
}

std::string_view vllm_rule_version(VllmRule rule) noexcept {
  switch (rule) {
    case VllmRule::graphs_outside: return kVllmVersionGraphsOutside;
    case VllmRule::graphs_inside: return kVllmVersionGraphsInside;
    case VllmRule::runner_v2: return kVllmVersionRunnerV2;
    case VllmRule::hybrid_prefix_caching: return kVllmVersionModelled;
  }
  return kVllmVersionModelled;
}

double vllm_default_gpu_util(VllmRule rule) noexcept {
  return rule == VllmRule::graphs_outside ? kVllmDefaultGpuUtilGraphsOutside : kVllmDefaultGpuUtil;
}

}  // namespace vramfit

namespace vramfit::detail {

VllmCapacity vllm_kv_capacity(std::uint64_t memory, double util, std::uint64_t weights, std::uint64_t activation,
                                      std::uint64_t non_torch, const VllmKvGroups& groups, std::uint64_t sequence_tokens,
                                      VllmRule rule, std::uint64_t graphs_in_budget) {
  VllmCapacity c;
  c.gpu_util = util;
  c.driver_total_bytes = memory;
  c.budget_bytes = static_cast<std::uint64_t>(std::floor(static_cast<double>(memory) * util));
  c.profile_activation_bytes = activation;
  c.non_torch_bytes = non_torch;
  const auto used = CheckedSum().add(weights).add(activation).add(non_torch).add(graphs_in_budget).value();
  c.kv_capacity_bytes = c.budget_bytes > used ? c.budget_bytes - used : 0;
  c.sequence_tokens = std::max<std::uint64_t>(sequence_tokens, 1);
  c.block_bytes = groups.row_bytes;
  c.block_tokens = groups.attention_block_tokens;
  c.kv_cache_groups = groups.groups;
  c.blocks_per_request = groups.blocks_per_request;
  const std::uint64_t charged = groups.request_block_bytes ? groups.request_block_bytes : groups.row_bytes;
  c.request_bytes = CheckedSum().add({charged, groups.blocks_per_request}).value();
  if (!groups.row_bytes || !groups.blocks_per_request) return c;
  c.num_blocks = c.kv_capacity_bytes / groups.row_bytes;
  c.max_concurrency = c.num_blocks / groups.blocks_per_request;
  // Checked against the pool less the block BlockPool keeps back (get_kv_cache_configs' check_memory).
  if (groups.request_block_bytes && c.request_bytes + groups.row_bytes > c.kv_capacity_bytes) c.max_concurrency = 0;
  c.concurrency_ratio = static_cast<double>(c.num_blocks) / static_cast<double>(groups.blocks_per_request);
  c.kv_capacity_tokens = rule != VllmRule::graphs_outside
                             ? static_cast<std::uint64_t>(c.concurrency_ratio * static_cast<double>(c.sequence_tokens))
                             : c.num_blocks / groups.groups * groups.min_block_tokens;
  return c;
}

VllmCapacity vllm_kv_capacity(std::uint64_t memory, double util, std::uint64_t weights, std::uint64_t activation,
                                      std::uint64_t non_torch, std::uint64_t per_token, std::uint64_t sequence_tokens) {
  const VllmLayerKind full{VllmSpecKind::full, 1, per_token, 0, 0};
  const auto groups = vllm_kv_groups({&full, 1}, sequence_tokens, 0, kVllmBlockSize);
  return vllm_kv_capacity(memory, util, weights, activation, non_torch, groups, sequence_tokens,
                          VllmRule::graphs_outside);
}

std::uint64_t vllm_graph_bytes(const InferenceOptions& o) { return o.enforce_eager ? 0 : kVllmCudaGraphBytes; }

namespace {

// vLLM's profile run: its torch peak is the larger of the forward pass over max_num_batched_tokens and the
// sampler's dummy run on R = min(max_num_seqs, max_num_batched_tokens) rows of full-vocabulary logits, while the
// forward's [tokens, hidden] output is still held. Tensor parallel gathers the whole vocabulary on every rank.
std::uint64_t vllm_sampler_bytes(const ModelSpec& spec, std::uint64_t tokens, std::uint64_t seqs, std::uint64_t c) {
  if (!spec.has_lm_head) return 0;
  const auto sampler = CheckedSum()
                           .add({std::min(tokens, seqs), spec.vocab_size, c + kVllmSamplerBytesPerLogit})
                           .add({tokens, spec.hidden_size, c})
                           .result();
  return sampler ? *sampler : ~0ULL;
}

// One layer kind as vLLM's get_kv_cache_spec gives it on one GPU: KV heads divided among tensor-parallel ranks
// (replicated beyond their count), the MLA latent whole on every rank, linear-attention and Mamba state split with
// their heads.
VllmLayerKind vllm_layer_kind(const LayerRun& run, const InferenceEstimate& e, const InferenceOptions& o,
                              const KvLayout& layout) {
  const std::uint64_t tp = o.tensor_parallel;
  if (run.keeps_state()) return {VllmSpecKind::state, run.count, 0, ceil_div(layer_state_bytes(run, layout), tp), 0};
  const std::uint64_t row = layer_token_bytes(run, e.kv_dtype, layout.mla).value_or(0);
  if (run.mixer == MixerKind::latent_attention) return {VllmSpecKind::full, run.count, row, 0, 0};
  const AttentionMixer& a = run.attention;
  const std::uint64_t kept = std::max<std::uint64_t>(1, a.kv_heads / tp);
  const std::uint64_t bytes = detail::mul_div_ceil(row, kept, std::max<std::uint64_t>(a.kv_heads, 1)).value_or(row);
  if (a.chunk) return {VllmSpecKind::chunked, run.count, bytes, 0, a.chunk};
  if (a.window) return {VllmSpecKind::sliding, run.count, bytes, 0, a.window};
  return {VllmSpecKind::full, run.count, bytes, 0, 0};
}

// The kinds of the layers on the busiest GPU, alike runs merged; the stages split each kind's layers.
std::vector<VllmLayerKind> vllm_layer_kinds(const ModelSpec& spec, const InferenceEstimate& e,
                                            const InferenceOptions& o, const KvLayout& layout) {
  std::vector<VllmLayerKind> kinds;
  for (const LayerRun& run : spec.layers) {
    if (!run.keeps_tokens() && !run.keeps_state()) continue;
    const VllmLayerKind k = vllm_layer_kind(run, e, o, layout);
    const auto same = std::find_if(kinds.begin(), kinds.end(), [&](const VllmLayerKind& x) {
      return x.kind == k.kind && x.window == k.window && x.token_bytes == k.token_bytes && x.state_bytes == k.state_bytes;
    });
    if (same == kinds.end()) kinds.push_back(k);
    else same->layers += k.layers;
  }
  for (VllmLayerKind& k : kinds) k.layers = ceil_div(k.layers, o.pipeline_parallel);
  return kinds;
}

// DeepSeek-V4's attention layers as vLLM caches them: fp8 KV in its fp8_ds_mla layout (584-B entries, pages
// aligned to 576 B), other KV dtypes as plain rows (pages aligned to 512 B); the indexer's keys fp8 either way.
VllmDsv4Layers vllm_dsv4_layers(const ModelSpec& spec, KvDType kv_dtype) {
  VllmDsv4Layers l;
  for (const LayerRun& run : spec.layers) {
    if (run.mixer != MixerKind::attention || !run.attention.one_kv_entry) continue;
    const AttentionMixer& a = run.attention;
    (a.compress_ratio == 4 ? l.ratio4 : a.compress_ratio > 1 ? l.ratio128 : l.window_only) += run.count;
    l.window = a.window;
    l.head_dim = a.head_dim;
    l.index_head_dim = std::max(l.index_head_dim, a.index_head_dim);
  }
  const bool ds_mla = kv_dtype == KvDType::fp8;
  l.entry_bytes = ds_mla ? kVllmDsMlaEntryBytes : kv_bytes(l.head_dim, kv_dtype).value_or(0);
  l.index_key_bytes = l.index_head_dim + ceil_div(l.index_head_dim, kVllmIndexerScaleBlock) * 4;
  l.page_align = ds_mla ? kVllmCompressedPageAlign : kVllmPlainPageAlign;
  return l;
}

bool has_one_entry_layers(const ModelSpec& spec) {
  return std::any_of(spec.layers.begin(), spec.layers.end(), [](const LayerRun& run) {
    return run.mixer == MixerKind::attention && run.attention.one_kv_entry;
  });
}

// What a sliding cache holds beyond its window (VllmConfig.max_in_flight_tokens): max_num_batched_tokens for each
// batch in flight, two with async scheduling (on by default) on one stage, one per stage with pipeline parallel.
std::uint64_t vllm_in_flight_tokens(const InferenceOptions& o, std::uint64_t batched_tokens) {
  return (o.pipeline_parallel > 1 ? o.pipeline_parallel : kVllmAsyncBatchesInFlight) * batched_tokens;
}

// vLLM's groups for the model on one GPU.
VllmKvGroups vllm_groups_of(const ModelSpec& spec, const InferenceEstimate& e, const InferenceOptions& o,
                            const KvLayout& layout, std::uint64_t tokens) {
  // From 0.27 prefix caching is on for hybrid models too (PR #50991), in mamba_cache_mode align: two state pages.
  const std::uint64_t state_pages = o.vllm_rule == VllmRule::hybrid_prefix_caching ? 2 : 1;
  if (has_one_entry_layers(spec))
    return vllm_dsv4_groups(vllm_dsv4_layers(spec, e.kv_dtype), o.context_tokens, vllm_in_flight_tokens(o, tokens),
                            kVllmCompressedBlockTokens, o.pipeline_parallel);
  std::vector<VllmLayerKind> kinds = vllm_layer_kinds(spec, e, o, layout);
  // The draft's attention layers take pages of the same pool (one more full-attention kind), split across the
  // ranks as the target's are.
  if (const auto& d = e.draft_detail; d && d->layers && d->kv_bytes_per_token) {
    const std::uint64_t per_layer = d->kv_bytes_per_token / d->layers;
    const std::uint64_t rank = e.kv.bytes_per_token
                                   ? detail::mul_div_ceil(per_layer, kv_bytes_per_token_rank(spec, e.kv.bytes_per_token, o),
                                                          e.kv.bytes_per_token).value_or(per_layer)
                                   : per_layer;
    // A draft layer shaped like the target's has its spec, and joins its group (one page size).
    const auto same = std::find_if(kinds.begin(), kinds.end(), [&](const VllmLayerKind& k) {
      return k.kind == VllmSpecKind::full && k.token_bytes == rank;
    });
    if (same != kinds.end()) same->layers += d->layers;
    else kinds.push_back({VllmSpecKind::full, d->layers, rank, 0, 0});
  }
  return vllm_kv_groups(kinds, o.context_tokens, tokens, kVllmBlockSize, state_pages);
}

// Whether vLLM from 0.25 runs the model on Model Runner V2 (VllmConfig.use_v2_model_runner,
// _is_default_v2_model_runner_model in vllm/config/vllm.py): a generating model that is neither hybrid (Mamba or
// linear-attention layers) nor attention-free, and not a mixture of experts unless its architecture is listed.
bool vllm_model_runner_v2(const ModelSpec& spec) {
  if (!spec.causal || spec.is_bare()) return false;
  const bool listed = std::find(std::begin(kVllmRunnerV2MoeTypes), std::end(kVllmRunnerV2MoeTypes),
                                spec.architecture) != std::end(kVllmRunnerV2MoeTypes);
  bool attention = false, state = false;
  for (const LayerRun& run : spec.layers) {
    state = state || run.keeps_state();
    attention = attention || run.keeps_tokens();
  }
  if (!attention || (state && !listed)) return false;
  return listed || !spec.has_moe();
}

}  // namespace

// vLLM: the profile run's torch peak, and with a GPU the KV pool that leaves.
std::optional<Error> add_vllm_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                     const InferenceOptions& o, const KvLayout& layout) {
  const VllmMxfp4Kernel kernel = w.mxfp4 ? vllm_mxfp4_kernel(o.gpu_compute_capability) : VllmMxfp4Kernel{};
  const std::uint64_t padding = kernel.name.empty() ? 0 : vllm_mxfp4_padding_bytes(spec, o.tensor_parallel, kernel);
  e.weights += padding;
  // --language-model-only: the vision tower is never built, so neither loaded nor profiled.
  if (o.language_model_only)
    for (const WeightGroup& g : e.weight_detail.groups)
      if (g.what == "vision tower") e.weights -= std::min(g.bytes, e.weights);
  const bool large = o.gpu_memory_bytes >= kVllmLargeGpuBytes && !o.gpu_is_a100;
  const std::uint64_t tokens = o.max_num_batched_tokens.value_or(large ? kVllmMaxBatchedTokensLarge : kVllmMaxBatchedTokens);
  const std::uint64_t seqs = o.max_num_seqs.value_or(large ? kVllmMaxNumSeqsLarge : kVllmMaxNumSeqs);
  auto peak = activation_peak(spec, tokens, 1, w.compute_bytes, false);
  const std::uint64_t sampler = vllm_sampler_bytes(spec, tokens, seqs, w.compute_bytes);
  if (!peak || sampler == ~0ULL) return make_error("max_num_batched_tokens", message("error.inference.too_large", "too large"));
  e.logits = sampler;
  // Tensor parallel splits the forward's widest tensors; every rank still gathers and samples the whole vocabulary.
  const std::uint64_t forward = ceil_div(peak->layer_bytes, o.tensor_parallel);
  e.activations = std::max(forward, sampler);
  w.peak_width = peak->width;
  const std::uint64_t ranks = o.tensor_parallel * o.pipeline_parallel;
  const std::uint64_t non_torch = o.tensor_parallel > 1 ? kVllmNonTorchTpBytes : kVllmNonTorchBytes;
  // DeepSeek-V4 holds some tensors whole on every tensor-parallel rank.
  std::uint64_t replicated = 0;
  if (o.tensor_parallel > 1 && has_one_entry_layers(spec)) {
    auto format = weight_format_of(spec, o);
    if (!format) return format.error();
    auto bytes = weights_bytes_of(spec, format.value(), vllm_dsv4_replicated);
    if (!bytes) return bytes.error();
    replicated = bytes.value();
  }
  const std::uint64_t draft_weights = e.draft_detail ? ceil_div(e.draft_detail->weights, o.tensor_parallel) : 0;
  const std::uint64_t weights = vllm_rank_weights(e.weights, replicated, o.tensor_parallel, o.pipeline_parallel);
  const std::uint64_t per_token = kv_bytes_per_token_rank(spec, e.kv.bytes_per_token, o);
  const std::uint64_t state = ceil_div(e.kv.state_bytes_per_sequence, ranks);
  const std::uint64_t graphs = vllm_graph_bytes(o);
  const bool runner_v2 = (o.vllm_rule == VllmRule::runner_v2 || o.vllm_rule == VllmRule::hybrid_prefix_caching) &&
                         vllm_model_runner_v2(spec);
  const bool graphs_in_budget = o.vllm_rule != VllmRule::graphs_outside && !runner_v2;
  // A vision model's profile run encodes dummy images first and keeps their embeddings through the language model's
  // batch: what that adds to the peak comes out of the pool too (the vision encoder's line).
  std::optional<VllmEncoderProfile> profile;
  if (spec.vision_params && !spec.is_bare() && !o.language_model_only)
    profile = vllm_encoder_profile(spec, o, tokens, seqs, w.compute_bytes, e.activations);
  const std::uint64_t images_peak = profile ? profile->added_bytes : 0;
  VllmCapacity caps;
  // An encoder's layers ask for no KV cache (EncoderOnlyAttention.get_kv_cache_spec returns None), and with none
  // vLLM neither profiles for nor allocates a pool (v1/engine/core.py, _initialize_kv_caches: "Attention free
  // models don't need memory for kv cache"): no capacity, and no refusal for want of one.
  if (o.gpu_memory_bytes && spec.causal) {
    caps = vllm_kv_capacity(o.gpu_memory_bytes, o.gpu_util, weights + draft_weights, e.activations + images_peak, non_torch,
                                    vllm_groups_of(spec, e, o, layout, tokens), o.context_tokens, o.vllm_rule,
                                    graphs_in_budget ? graphs : 0);
  } else {
    caps.gpu_util = o.gpu_util;
    caps.profile_activation_bytes = e.activations + images_peak;
    caps.non_torch_bytes = non_torch;
    caps.sequence_tokens = o.context_tokens;
  }
  caps.max_num_batched_tokens = tokens;
  caps.max_num_seqs = seqs;
  caps.sampler_bytes = sampler;
  caps.forward_bytes = forward;
  caps.tensor_parallel = o.tensor_parallel;
  caps.pipeline_parallel = o.pipeline_parallel;
  caps.weights_bytes = weights;
  caps.replicated_weights_bytes = replicated;
  caps.mxfp4_padding_bytes = padding;
  caps.mxfp4_kernel = padding ? kernel.name : std::string_view{};
  caps.kv_bytes_per_token = per_token;
  caps.cuda_graph_bytes = graphs;
  caps.cuda_graphs_in_budget = graphs_in_budget;
  caps.rule = o.vllm_rule;
  caps.model_runner_v2 = runner_v2;
  caps.engine_version = version_named(o.vllm_version, vllm_rule_version(o.vllm_rule));
  caps.state_bytes_per_sequence = state;
  caps.encoder_profile = profile;
  e.vllm = caps;
  return std::nullopt;
}

Explanation vllm_activations_explanation(const ModelSpec& spec, const InferenceOptions&, const InferenceEstimate& e,
                                         const Workings& w) {
  const VllmCapacity& v = *e.vllm;
  return {"activations",
          message("explain.activations.formula_vllm",
                  "max(forward: max_num_batched_tokens × max live width × bytes, sampler: min(max_num_seqs, "
                  "max_num_batched_tokens) × vocab × (bytes + 36) + max_num_batched_tokens × hidden × bytes)"),
          message("explain.activations.values_vllm",
                  "max({tokens} × {width} × {element} B = {forward} B, {rows} × {vocab} × {logit} B + {tokens} × "
                  "{hidden} × {element} B = {sampler} B) = {activations} B",
                  {arg::count("tokens", v.max_num_batched_tokens), arg::count("width", w.peak_width),
                   arg::count("element", w.compute_bytes), arg::count("forward", v.forward_bytes),
                   arg::count("rows", std::min(v.max_num_batched_tokens, v.max_num_seqs)),
                   arg::count("vocab", spec.vocab_size),
                   arg::count("logit", w.compute_bytes + kVllmSamplerBytesPerLogit),
                   arg::count("hidden", spec.hidden_size), arg::count("sampler", v.sampler_bytes),
                   arg::count("activations", e.activations)}),
          message("explain.activations.source_vllm",
                  "vLLM 0.11 profile run (gpu_worker.determine_available_memory): _dummy_run, then _dummy_sampler_run "
                  "(logits, their fp32 copy, top-k/top-p sort values, indices and radix-sort buffers); defaults from "
                  "EngineArgs for vllm serve")};
}

// What vLLM's pool figures assume, and what would stop vLLM from starting.
void add_vllm_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                    const InferenceEstimate& e) {
  if (e.vllm && !spec.causal)
    notes.push_back(message("vllm.no_kv_cache",
                            "vLLM keeps no KV cache for an encoder: it sets no memory aside for one and takes what the "
                            "weights, one batch's activations and its own overhead need; gpu_memory_utilization only "
                            "says how much must be free when it starts."));
  else if (e.vllm && !o.gpu_memory_bytes)
    notes.push_back(message("vllm.choose_gpu", "Choose a GPU to see vLLM's KV capacity and concurrency."));
  if (e.vllm && o.gpu_memory_bytes && o.gpu_total_nominal)
    notes.push_back(message("vllm.nominal_total",
                            "The catalog has no driver-reported total for this GPU: vLLM's gpu_memory_utilization "
                            "is taken of its nominal memory, while the driver shows 1–3 % less (an H100 80GB 79.18 "
                            "GiB), so the KV capacity here is slightly high."));
  else if (e.vllm && o.gpu_memory_bytes && e.vllm->driver_total_bytes)
    notes.push_back(message("vllm.driver_total",
                            "vLLM's budget is gpu_memory_utilization {util} of {total_bytes}, {cuda_total}.",
                            {arg::fixed("util", e.vllm->gpu_util, 2),
                             arg::gib("total_bytes", e.vllm->driver_total_bytes, 2),
                             arg::message("cuda_total", driver_total_clause(o.gpu_is_rocm))}));
  if (e.vllm && has_one_entry_layers(spec) && e.vllm->kv_cache_groups)
    notes.push_back(message("vllm.dsv4_groups",
                            "vLLM keeps DeepSeek-V4's cache in {groups} groups (the sliding window, the compressed "
                            "entries with the indexer's keys, the compressors' state) drawing on one pool of blocks "
                            "of {block_bytes}. A request of max_model_len holds {blocks} blocks across them, most of "
                            "them for the window and the compressors' state whatever its length, so vLLM's \"GPU KV "
                            "cache size\" is the concurrency times max_model_len, not the pool over the bytes per "
                            "token.",
                            {arg::count("groups", e.vllm->kv_cache_groups),
                             arg::bytes("block_bytes", e.vllm->block_bytes),
                             arg::count("blocks", e.vllm->blocks_per_request)}));
  if (e.vllm && e.vllm->replicated_weights_bytes)
    notes.push_back(message("vllm.replicated_weights",
                            "vLLM holds {replicated_bytes} of DeepSeek-V4's weights whole on each of the {tp} "
                            "tensor-parallel GPUs (the attention's input projections, the indexer, the compressors, "
                            "the router, the norms), so each GPU carries more than 1/{tp} of the weights.",
                            {arg::gib("replicated_bytes", e.vllm->replicated_weights_bytes, 2),
                             arg::count("tp", e.vllm->tensor_parallel)}));
  if (e.vllm && e.vllm->model_runner_v2 && e.vllm->cuda_graph_bytes && o.gpu_memory_bytes && spec.causal)
    notes.push_back(message("vllm.graphs_outside_v2",
                            "vLLM {version} runs this model on its Model Runner V2, which sets nothing aside for the "
                            "CUDA graphs: they take about {graph_bytes} on top of gpu_memory_utilization, captured "
                            "after the KV cache, and can run out of memory on a nearly full GPU (vLLM issue 49224).",
                            {arg::text("version", e.vllm->engine_version),
                             arg::gib("graph_bytes", e.vllm->cuda_graph_bytes, 2)}));
  if (e.vllm && e.kv.state_layers && !has_one_entry_layers(spec) && e.vllm->rule == VllmRule::hybrid_prefix_caching)
    notes.push_back(message("vllm.state_pages_cached",
                            "vLLM {version} caches prefixes for hybrid models too (mamba_cache_mode align): each "
                            "running sequence holds two state pages per linear-attention or Mamba layer group, from "
                            "the same pool as the KV blocks, its attention block raised so that one page holds a "
                            "state.",
                            {arg::text("version", e.vllm->engine_version)}));
  else if (e.vllm && e.kv.state_layers && !has_one_entry_layers(spec))
    notes.push_back(message("vllm.state_pages",
                            "vLLM's hybrid KV cache manager gives each running sequence one state page per "
                            "linear-attention or Mamba layer group from the same pool as the KV blocks, its attention "
                            "block raised so that one page holds a state. With prefix caching (mamba_cache_mode align) "
                            "a sequence holds two state pages: fewer sequences than shown here."));
  if (e.vllm && e.vllm->mxfp4_padding_bytes)
    notes.push_back(message("vllm.mxfp4_padding",
                            "vLLM's {kernel} kernel for the MXFP4 experts pads their widths to its alignment: the "
                            "weights take {padding_bytes} more on the GPU than in the files.",
                            {arg::text("kernel", e.vllm->mxfp4_kernel),
                             arg::gib("padding_bytes", e.vllm->mxfp4_padding_bytes, 2)}));
  if (e.vllm && e.vllm->driver_total_bytes && e.vllm->max_concurrency == 0)
    notes.push_back(message("vllm.kv_short",
                            "vLLM would refuse to start: one request of max_model_len {context} needs {need_bytes} of "
                            "KV cache and it has {pool_bytes}; lower the context or raise gpu_memory_utilization.",
                            {arg::count("context", o.context_tokens), arg::gib("need_bytes", e.vllm->request_bytes, 2),
                             arg::gib("pool_bytes", e.vllm->kv_capacity_bytes, 2)}));
}

}  // namespace vramfit::detail
