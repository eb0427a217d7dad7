#include "memory/engines/ollama.hpp"

#include <algorithm>  // std::max
#include <string>     // std::string
#include <vector>     // std::vector

#include "memory/in_use.hpp"

#include "memory/inference_steps.hpp"

namespace vramfit {

OllamaGraphFormula ollama_graph_formula(std::string_view t, bool moe) noexcept {
  // GGUF's architecture for these HF model types is "llama" (llama.cpp convert_hf_to_gguf.py); Mixtral's experts
  // take GraphSize's Mixtral branch of the llama case.
  if (t == "llama" || t == "mistral" || t == "llama4") return moe ? OllamaGraphFormula::unmodelled : OllamaGraphFormula::llama;
  if (t == "qwen2") return OllamaGraphFormula::qwen2;
  if (t == "gemma" || t == "gemma2" || t == "gemma3" || t == "gemma3_text") return OllamaGraphFormula::gemma;
  if (t == "gemma3n" || t == "gemma3n_text") return OllamaGraphFormula::gemma3n;
  if (t == "gpt_oss") return OllamaGraphFormula::gpt_oss;
  // GraphSize's other cases: mllama, command-r, phi2, stablelm, deepseek2, chatglm.
  constexpr std::string_view own[] = {"mllama", "cohere",      "phi",     "stablelm", "deepseek_v2",
                                      "deepseek_v3", "chatglm", "glm",     "mixtral"};
  for (std::string_view name : own)
    if (t == name) return OllamaGraphFormula::unmodelled;
  return OllamaGraphFormula::generic;
}

std::string_view ollama_graph_formula_name(OllamaGraphFormula formula) noexcept {
  switch (formula) {
    case OllamaGraphFormula::llama: return "llama";
    case OllamaGraphFormula::qwen2: return "qwen2";
    case OllamaGraphFormula::gemma: return "gemma";
    case OllamaGraphFormula::gemma3n: return "gemma3n";
    case OllamaGraphFormula::gpt_oss: return "gpt-oss";
    case OllamaGraphFormula::generic: return "generic";
    case OllamaGraphFormula::unmodelled: return "generic (its own formula not modelled)";
  }
  return "generic";
}

OllamaKvRule ollama_kv_rule(std::string_view t) noexcept {
  // GGUF's architecture is "gemma3" for both HF types (llama.cpp convert_hf_to_gguf.py Gemma3Model); Gemma 3n's is
  // "gemma3n", which GraphSize leaves at the full context.
  if (t == "gemma3" || t == "gemma3_text") return OllamaKvRule::gemma3;
  if (t == "gpt_oss") return OllamaKvRule::gpt_oss;
  return OllamaKvRule::full;
}

std::vector<std::uint64_t> ollama_kv_tokens(const OllamaKvTokens& in) {
  constexpr std::uint64_t kGemma3GlobalEvery = 6;  // GraphSize's gemma3GlobalCacheCount
  constexpr std::uint64_t kGptOssWindow = 4096;    // GraphSize's gptoss case
  std::vector<std::uint64_t> tokens(in.blocks, in.context);
  for (std::uint64_t i = 0; i < in.blocks; ++i) {
    if (in.rule == OllamaKvRule::gemma3 && (i + 1) % kGemma3GlobalEvery != 0)
      tokens[i] = in.parallel * in.window + in.batch;
    if (in.rule == OllamaKvRule::gpt_oss && i % 2 == 0) tokens[i] = in.parallel * kGptOssWindow + in.batch;
  }
  return tokens;
}

OllamaGraph ollama_graph(const OllamaGraphInputs& in) noexcept {
  const std::uint64_t b = in.batch, c = in.context, e = in.embedding, h = in.heads, hkv = in.heads_kv,
                      eh = in.head_dim, v = in.vocab;
  OllamaGraph g;
  if (in.formula == OllamaGraphFormula::llama) {
    g.full = std::max(4 * b * (1 + 4 * e + c * (1 + h)), 4 * b * (e + v));
    g.partial = 4 * b * e + std::max(4 * b * (1 + e + std::max(c, e)) + e * e * 9 / 16 + 4 * c * (b * h + eh * hkv),
                                     4 * b * (e + v) + e * v * 105 / 128);
  } else if (in.formula == OllamaGraphFormula::qwen2) {
    g.full = std::max(4 * b * (e + v), 4 * b * (1 + 2 * e + c + c * h));
    g.partial = std::max(4 * b * (e + v) + e * v * 105 / 128, 4 * (b * (1 + 2 * e + c * (1 + h)) + e * (1 + c)));
  } else if (in.formula == OllamaGraphFormula::gemma || in.formula == OllamaGraphFormula::gemma3n) {
    g.full = std::max(4 * b * (e + v), 4 * b * (2 + c + c * h + 2 * e + 2 * eh * h));
    g.partial = std::max(4 * e * b + e * v * 105 / 128 + 4 * v * b,
                         4 * b * (2 * e + 1 + 2 * eh * h + c + c * h) + 4 * eh * c * 8 + e * eh * h * 9 / 16);
    if (in.formula == OllamaGraphFormula::gemma3n) {
      g.full *= 4;
      g.partial *= 4;
    }
  } else if (in.formula == OllamaGraphFormula::gpt_oss) {
    // Its KV total here is every block at the full context (summed before the sliding blocks are cut); with flash
    // attention a fixed guess in MiB. No full-offload figure: estimateGPULayers then uses the partial one.
    g.partial = in.flash_attention ? (4 * in.parallel + (c >> 10) + 110) * 1048576
                                   : 2 * h / std::max<std::uint64_t>(in.heads_kv_min, 1) * in.kv_full_total / 6;
    g.full = g.partial;
  } else {
    // estimateGPULayers' rule where GraphSize has none: GQA × KV / 6, the same for both.
    g.partial = h / std::max<std::uint64_t>(hkv, 1) * in.kv_total / 6;
    g.full = g.partial;
  }
  if (in.metal) g.partial = g.full;
  return g;
}

OllamaPlacement place_ollama_layers(const OllamaLayerInputs& in) noexcept {
  OllamaPlacement p;
  const std::uint64_t n = in.layer_bytes.size();
  p.layers_model = n + 1;
  const std::uint64_t graph_max = std::max(in.graph.full, in.graph.partial);
  const std::uint64_t first = n ? in.layer_bytes[0] + in.kv_bytes[0] : 0;
  // A GPU is used only if it holds the overhead, the graph, its minimum and two layers; it then holds one spare
  // layer besides those it gets.
  p.gpu_usable = n && in.free_bytes >= in.overhead_bytes + graph_max + in.minimum_bytes + 2 * first;
  std::uint64_t used = p.gpu_usable ? in.minimum_bytes + first : 0;
  bool space = p.gpu_usable;
  std::uint64_t count = 0;
  for (std::uint64_t i = n; i-- > 0;) {
    const std::uint64_t layer = in.layer_bytes[i] + in.kv_bytes[i];
    if (in.num_gpu && count >= *in.num_gpu) {
      p.overflow_bytes += layer;
      continue;
    }
    if (space && in.free_bytes > in.overhead_bytes + used + graph_max + layer) {
      used += layer;
      ++count;
      continue;
    }
    space = false;
    p.overflow_bytes += layer;
  }
  p.fully_loaded = n && count >= n;
  if (in.output_bytes) {
    if ((!in.num_gpu || count < *in.num_gpu) && space &&
        in.free_bytes > in.overhead_bytes + used + graph_max + in.output_bytes) {
      used += in.output_bytes;
      ++count;
    }
    if (count < n + 1) {
      p.fully_loaded = false;
      p.overflow_bytes += in.output_bytes;
    }
  }
  p.graph_bytes = p.fully_loaded ? in.graph.full : in.graph.partial;
  if (count) used += p.graph_bytes;
  p.layers_offload = count;
  p.vram_bytes = count ? used : 0;
  p.total_bytes = used + p.overflow_bytes;
  return p;
}

std::optional<OllamaRule> parse_ollama_version(std::string_view v) noexcept {
  const auto version = detail::parse_engine_version(v);
  if (!version) return std::nullopt;
  if (version->at_least(0, 31, 2)) return OllamaRule::llama_server_fit_target;
  if (version->at_least(0, 30, 11)) return OllamaRule::llama_server_projector_room;
  if (version->at_least(0, 30, 0)) return OllamaRule::llama_server;
  if (version->at_least(0, 11, 11)) return std::nullopt;
  return version->at_least(0, 6, 7) ? OllamaRule::num_ctx_4096 : OllamaRule::num_ctx_2048;
}

std::optional<std::uint64_t> ollama_llamacpp_build(std::string_view v) noexcept {
  struct Bundle {
    std::uint64_t minor, patch, build;  // 0.minor.patch is the first release with this build
  };
  // LLAMA_CPP_VERSION at each of ollama/ollama's tags v0.30.0 to v0.32.15.
  static constexpr Bundle kBundles[] = {
      {30, 0, 9452},  {30, 1, 9479},  {30, 4, 9493},  {30, 5, 9509},  {30, 9, 9626},   {30, 10, 9672},
      {30, 11, 9781}, {31, 0, 9840},  {31, 2, 9888},  {32, 2, 10069}, {32, 3, 10091},  {32, 6, 10242},
      {32, 8, 10353}, {32, 10, 10380}, {32, 14, 10434}, {32, 15, 10488}};
  const auto version = detail::parse_engine_version(v);
  if (!version || version->part[0] != 0 || !version->at_least(0, 30, 0) || version->at_least(0, 32, 16))
    return std::nullopt;
  std::uint64_t build = 0;
  for (const Bundle& b : kBundles)
    if (version->at_least(0, b.minor, b.patch)) build = b.build;
  return build;
}

std::string_view ollama_rule_version(OllamaRule rule) noexcept {
  switch (rule) {
    case OllamaRule::num_ctx_2048: return "0.6.6";
    case OllamaRule::num_ctx_4096: return "0.11.10";
    case OllamaRule::llama_server: return "0.30.10";
    case OllamaRule::llama_server_projector_room: return "0.31.1";
    case OllamaRule::llama_server_fit_target: return kOllamaVersionModelled;
  }
  return kOllamaVersionModelled;
}

bool ollama_parallel_automatic(std::string_view v) noexcept {
  const auto version = detail::parse_engine_version(v);
  return version && !version->at_least(0, 10, 0);
}

bool ollama_flash_attention_default(std::string_view t, std::string_view v) noexcept {
  if (t != "gpt_oss") return false;
  if (v.empty()) return true;
  const auto version = detail::parse_engine_version(v);
  return version && version->at_least(0, 11, 8);
}

std::uint64_t ollama_default_num_ctx(OllamaRule rule) noexcept {
  return rule == OllamaRule::num_ctx_2048 ? 2048 : 4096;
}

OllamaEstimatorProjector ollama_estimator_projector(const ModelSpec& spec, std::uint64_t tower_bytes) noexcept {
  OllamaEstimatorProjector p;
  const ModelSpec::VisionTower& t = spec.vision;
  if (!tower_bytes || !t.hidden_size) return p;
  p.weights = tower_bytes;
  if (spec.architecture != "gemma3" && spec.architecture != "gemma3_text") return p;
  // Gemma 3's "mm." tensors (mm_input_projection, vision width × text width; mm_soft_emb_norm) are not "v.": left
  // out of the count, at the 2 bytes each the tower's bytes hold them.
  const std::uint64_t mm = 2 * (t.hidden_size * spec.hidden_size + t.hidden_size);
  p.weights = tower_bytes > mm ? tower_bytes - mm : 0;
  // VisionGraphSize, case "gemma3": 4 × (image_size² × channels + embedding_length × patch_size + patches² ×
  // head_count), patches = (image_size / patch_size)² (no class embedding).
  if (t.image_size && t.patch_size) {
    const std::uint64_t side = t.image_size / t.patch_size, patches = side * side;
    p.graph = 4 * (t.image_size * t.image_size * 3 + t.hidden_size * t.patch_size + patches * patches * t.heads);
    p.graph_known = true;
  }
  return p;
}

}  // namespace vramfit

namespace vramfit::detail {
namespace {

// The tokens GraphSize counts in each block's KV cache.
std::vector<std::uint64_t> ollama_block_tokens(const ModelSpec& spec, const InferenceOptions& o) {
  std::uint64_t window = 0;  // attention.sliding_window
  for (const LayerRun& run : spec.layers)
    if (run.mixer == MixerKind::attention) window = std::max(window, run.attention.window);
  return ollama_kv_tokens({ollama_kv_rule(spec.architecture), spec.num_layers(), o.context_tokens * o.batch, o.batch,
                           std::min(o.context_tokens, kOllamaNumBatch), window});
}

// Ollama's KV per block as GraphSize sizes it: the block's tokens × (key + value length) × the largest KV head
// count × the cache type's bytes (f16 2, q8_0 1, q4_0 0.5).
std::vector<std::uint64_t> ollama_kv_layers(const ModelSpec& spec, const std::vector<std::uint64_t>& tokens,
                                            KvDType type) {
  std::uint64_t width = 0;  // (key + value length) × KV heads, the largest of the layers
  for (const LayerRun& run : spec.layers) {
    if (run.mixer == MixerKind::attention)
      width = std::max(width, (run.attention.head_dim + run.attention.value_dim()) * run.attention.kv_heads);
    if (run.mixer == MixerKind::latent_attention)
      width = std::max(width, (run.latent.qk_nope_head_dim + run.latent.qk_rope_head_dim + run.latent.v_head_dim) *
                                  run.latent.heads);
  }
  const std::uint64_t half_bytes = type == KvDType::q4_0 ? 1 : type == KvDType::q8_0 ? 2 : 4;
  std::vector<std::uint64_t> bytes;
  for (std::uint64_t t : tokens) bytes.push_back(t * width * half_bytes / 2);
  return bytes;
}

OllamaGraphInputs ollama_graph_inputs(const ModelSpec& spec, const InferenceOptions& o, std::uint64_t kv_total,
                                      std::uint64_t kv_full_total) {
  OllamaGraphInputs g;
  g.formula = ollama_graph_formula(spec.architecture, spec.has_moe());
  g.context = o.context_tokens * o.batch;
  g.batch = std::min(o.context_tokens, kOllamaNumBatch);
  g.embedding = spec.hidden_size;
  for (const LayerRun& run : spec.layers) {
    g.heads = std::max(g.heads, run.attention_heads());
    if (run.mixer != MixerKind::attention) continue;
    g.heads_kv = std::max(g.heads_kv, run.attention.kv_heads);
    g.heads_kv_min = g.heads_kv_min ? std::min(g.heads_kv_min, run.attention.kv_heads) : run.attention.kv_heads;
    g.head_dim = std::max(g.head_dim, run.attention.head_dim);
  }
  g.vocab = spec.vocab_size;
  g.kv_total = kv_total;
  g.kv_full_total = kv_full_total;
  g.parallel = o.batch;
  g.flash_attention = o.attention == Attention::sdpa;
  g.metal = o.gpu_is_apple;
  return g;
}

// Each block's weights (the routed experts of the MoE layers shared among them) and KV, and the output layer Ollama
// places last: output_norm + output, or token_embd when the output is tied to it.
OllamaLayerInputs ollama_layer_inputs(const ModelSpec& spec, const WeightBytes& wd, std::vector<std::uint64_t> kv,
                                      std::uint64_t tower_bytes) {
  OllamaLayerInputs in;
  in.kv_bytes = std::move(kv);
  const std::uint64_t n = spec.num_layers();
  std::uint64_t moe_layers = 0;
  for (const LayerRun& run : spec.layers) moe_layers += run.mlp.kind == MlpKind::moe ? run.count : 0;
  const std::uint64_t routed = moe_layers ? wd.routed_expert_bytes : 0;
  // The vision tower is no layer's: the projector's count below takes it.
  const std::uint64_t dense_part = n ? (wd.attention + wd.mlp + wd.norms + wd.other - routed - tower_bytes) / n : 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const bool moe = spec.layer(i).mlp.kind == MlpKind::moe && routed;
    in.layer_bytes.push_back(dense_part + (moe ? routed / moe_layers : 0));
  }
  in.output_bytes = wd.output + (spec.tied_embeddings ? wd.embedding : 0);
  return in;
}

// GraphSize's formula by the name ollama_graph_formula_name gives it.
Message ollama_graph_formula_message(std::string_view formula) {
  if (formula == "llama")
    return message("explain.activations.formula_ollama_llama",
                   "Ollama's graph (GraphSize, llama): full max(4·b·(1 + 4·emb + ctx·(1 + heads)), 4·b·(emb + vocab)); "
                   "partial 4·b·emb + max(4·b·(1 + emb + max(ctx, emb)) + emb²·9/16 + 4·ctx·(b·heads + head_dim·kv_heads), "
                   "4·b·(emb + vocab) + emb·vocab·105/128)");
  if (formula == "qwen2")
    return message("explain.activations.formula_ollama_qwen2",
                   "Ollama's graph (GraphSize, qwen2): full max(4·b·(emb + vocab), 4·b·(1 + 2·emb + ctx + ctx·heads)); "
                   "partial max(4·b·(emb + vocab) + emb·vocab·105/128, 4·(b·(1 + 2·emb + ctx·(1 + heads)) + emb·(1 + ctx)))");
  if (formula == "gemma" || formula == "gemma3n")
    return message("explain.activations.formula_ollama_gemma",
                   "Ollama's graph (GraphSize, gemma; × 4 for Gemma 3n): full max(4·b·(emb + vocab), 4·b·(2 + ctx + "
                   "ctx·heads + 2·emb + 2·head_dim·heads)); partial max(4·emb·b + emb·vocab·105/128 + 4·vocab·b, "
                   "4·b·(2·emb + 1 + 2·head_dim·heads + ctx + ctx·heads) + 4·head_dim·ctx·8 + emb·head_dim·heads·9/16)");
  if (formula == "gpt-oss")
    return message("explain.activations.formula_ollama_gpt_oss",
                   "Ollama's graph (GraphSize, gpt-oss): 2 × heads / kv_heads × KV at the full context / 6; with flash "
                   "attention (4·num_parallel + ctx / 1024 + 110) MiB; full = partial");
  return message("explain.activations.formula_ollama_other",
                 "Ollama's graph where GraphSize has no formula: heads / kv_heads × KV / 6");
}

}  // namespace

// Ollama: its own KV and graph figures, and with a GPU the layers it offloads; the estimate's lines are then the
// GPU's share (memory.required.partial), the rest is system RAM.
std::optional<Error> add_ollama_memory(InferenceEstimate& e, Workings&, const ModelSpec& spec, const InferenceOptions& o,
                                       const KvLayout&) {
  OllamaEstimate c;
  c.num_ctx = o.context_tokens;
  c.num_parallel = o.batch;
  c.flash_attention = o.attention == Attention::sdpa;
  c.kv_type_ignored = !c.flash_attention && e.kv_dtype != KvDType::fp16;
  c.kv_type = c.kv_type_ignored ? KvDType::fp16 : e.kv_dtype;
  e.kv_dtype = c.kv_type;
  const std::uint64_t n = spec.num_layers();
  const std::vector<std::uint64_t> tokens = ollama_block_tokens(spec, o);
  for (std::uint64_t t : tokens)
    if (t != o.context_tokens * o.batch) {
      ++c.window_layers;
      c.window_tokens = t;
    }
  std::vector<std::uint64_t> kv = ollama_kv_layers(spec, tokens, c.kv_type);
  for (std::uint64_t bytes : kv) c.kv_bytes += bytes;
  std::uint64_t kv_full = 0;  // every block at the full context, as GraphSize first sums it
  const std::vector<std::uint64_t> full_tokens(n, o.context_tokens * o.batch);
  for (std::uint64_t bytes : ollama_kv_layers(spec, full_tokens, c.kv_type)) kv_full += bytes;
  const OllamaGraph graph = ollama_graph(ollama_graph_inputs(spec, o, c.kv_bytes, kv_full));
  c.graph_formula = std::string(ollama_graph_formula_name(ollama_graph_formula(spec.architecture, spec.has_moe())));
  c.graph_full_bytes = graph.full;
  c.graph_partial_bytes = graph.partial;
  c.minimum_bytes = o.gpu_is_apple ? kOllamaMinimumMemoryMetal : kOllamaMinimumMemoryCuda;
  c.gpu_overhead_bytes = o.ollama_gpu_overhead;
  std::uint64_t tower = 0;
  for (const WeightGroup& g : e.weight_detail.groups) tower += g.what == "vision tower" ? g.bytes : 0;
  tower = std::min(tower, e.weight_detail.other);
  const OllamaEstimatorProjector projector = ollama_estimator_projector(spec, tower);
  OllamaLayerInputs in = ollama_layer_inputs(spec, e.weight_detail, std::move(kv), tower);
  const std::uint64_t output = in.output_bytes;
  in.output_bytes += projector.weights + projector.graph;  // memoryLastLayer
  // Discovery's FreeMemory is cudaMemGetInfo's free: what other programs hold is gone from it.
  const std::uint64_t free = free_beside(o.gpu_memory_bytes, o.memory_in_use);
  in.free_bytes = o.gpu_memory_bytes ? free : ~0ULL / 4;  // no GPU: every layer on one
  in.minimum_bytes = c.minimum_bytes;
  in.overhead_bytes = o.gpu_memory_bytes ? c.gpu_overhead_bytes : 0;
  in.graph = graph;
  in.num_gpu = o.gpu_layers;
  for (std::uint64_t bytes : in.layer_bytes) c.weights_repeating_bytes += bytes;
  c.output_bytes = output;
  c.projector_weights_bytes = projector.weights;
  c.projector_graph_bytes = projector.graph;
  c.projector_graph_known = projector.graph_known || !projector.weights;
  const WeightBytes& wd = e.weight_detail;
  const OllamaPlacement p = place_ollama_layers(in);
  c.planned = o.gpu_memory_bytes != 0;
  c.available_bytes = o.gpu_memory_bytes ? free : 0;
  c.layers_model = p.layers_model;
  c.layers_offload = p.layers_offload;
  c.gpu_usable = p.gpu_usable;
  c.required_full_bytes = p.total_bytes;
  c.required_partial_bytes = p.vram_bytes;
  c.system_ram_bytes = p.overflow_bytes + (spec.tied_embeddings ? 0 : wd.embedding);
  // The GPU's share, line by line: the blocks offloaded (the last ones), the output layer if it went too.
  const std::uint64_t blocks = std::min(p.layers_offload, n);
  const bool output_on_gpu = p.layers_offload > n;
  c.projector_on_gpu = output_on_gpu && projector.weights;
  std::uint64_t gpu_weights = output_on_gpu ? output : 0;
  std::uint64_t gpu_kv = 0;
  for (std::uint64_t i = n - blocks; i < n; ++i) {
    gpu_weights += in.layer_bytes[i];
    gpu_kv += in.kv_bytes[i];
  }
  const std::uint64_t spare = n && p.gpu_usable ? in.layer_bytes[0] + in.kv_bytes[0] : 0;
  e.weights = gpu_weights;
  e.kv_cache = gpu_kv;
  e.state_cache = 0;
  e.activations = p.layers_offload ? p.graph_bytes : 0;
  c.overhead_bytes = p.gpu_usable ? c.minimum_bytes + spare : 0;
  e.kv.bytes = c.kv_bytes;
  e.ollama = c;
  return std::nullopt;
}

Explanation ollama_kv_explanation(const OllamaEstimate& m, const InferenceEstimate& e) {
  const std::vector<MessageArg> args = {
      arg::count("ctx", m.num_ctx), arg::count("parallel", m.num_parallel), arg::count("window", m.window_tokens),
      arg::count("window_layers", m.window_layers), arg::count("kv", m.kv_bytes),
      arg::text("dtype", kv_dtype_info(m.kv_type).name), arg::count("gpu", e.kv_cache)};
  return {"kv_cache",
          message("explain.kv_cache.formula_ollama", "layers × num_ctx × num_parallel × (key + value length) × "
                                                     "kv_heads × bytes (f16 2, q8_0 1, q4_0 0.5)"),
          m.window_layers ? message("explain.kv_cache.values_ollama_window",
                                    "{ctx} × {parallel} tokens ({window} in {window_layers} sliding-window layers): "
                                    "{kv} B ({dtype}), {gpu} B of it on the GPU", args)
                          : message("explain.kv_cache.values_ollama",
                                    "{ctx} × {parallel} tokens: {kv} B ({dtype}), {gpu} B of it on the GPU", args),
          message("explain.kv_cache.source_ollama", "Ollama fs/ggml/ggml.go GraphSize (the log's memory.required.kv)")};
}

Explanation ollama_activations_explanation(const ModelSpec&, const InferenceOptions&, const InferenceEstimate& e,
                                           const Workings&) {
  const OllamaEstimate& m = *e.ollama;
  return {"activations", ollama_graph_formula_message(m.graph_formula),
          message("explain.activations.values_ollama",
                  "b = min(num_ctx, 512) = {b}, ctx = {ctx}: full {full} B, partial {partial} B; counted {counted} B",
                  {arg::count("b", std::min(m.num_ctx, kOllamaNumBatch)), arg::count("ctx", m.num_ctx * m.num_parallel),
                   arg::count("full", m.graph_full_bytes), arg::count("partial", m.graph_partial_bytes),
                   arg::count("counted", e.activations)}),
          message("explain.activations.source_ollama",
                  "Ollama fs/ggml/ggml.go GraphSize and llm/memory.go estimateGPULayers (v0.11.10); the log's "
                  "memory.graph.full and memory.graph.partial")};
}

// What Ollama's estimate assumes, and where it puts the layers.
void add_ollama_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                      const InferenceEstimate& e) {
  if (!e.ollama) return;
  const OllamaEstimate& c = *e.ollama;
  if (c.kv_type_ignored)
    notes.push_back(message("ollama.kv_type_ignored",
                            "Ollama quantizes the KV cache only with flash attention (OLLAMA_FLASH_ATTENTION=1): "
                            "without it OLLAMA_KV_CACHE_TYPE is ignored and the cache stays f16, as counted here."));
  if (c.graph_formula == ollama_graph_formula_name(OllamaGraphFormula::unmodelled))
    notes.push_back(message("ollama.graph_unmodelled",
                            "Ollama has its own graph estimate for {architecture}, not modelled here: the graph "
                            "uses its generic rule, heads / kv_heads × KV / 6.",
                            {arg::text("architecture", spec.architecture)}));
  if (c.window_layers)
    notes.push_back(message("ollama.kv_window",
                            "Ollama's estimator counts {window_tokens} tokens (num_parallel × a window of {window} + "
                            "the batch) in the KV cache of {window_layers} of the {layers} layers and num_ctx × "
                            "num_parallel in the others, as counted here.",
                            {arg::count("window_tokens", c.window_tokens),
                             arg::count("window", (c.window_tokens - std::min(c.num_ctx, kOllamaNumBatch)) /
                                                      std::max<std::uint64_t>(c.num_parallel, 1)),
                             arg::count("window_layers", c.window_layers), arg::count("layers", spec.num_layers())}));
  else if (e.kv.state_layers || e.kv.windowed_layers)
    notes.push_back(message("ollama.kv_full_ctx",
                            "Ollama's estimator sizes the KV cache of every layer for the full num_ctx, as counted "
                            "here, although llama.cpp then keeps less for sliding-window, linear-attention or Mamba "
                            "layers."));
  if (!c.planned) {
    notes.push_back(message("ollama.choose_gpu",
                            "Choose a GPU to see how many layers Ollama offloads and what stays in system RAM."));
    return;
  }
  if (o.memory_in_use)
    notes.push_back(message("ollama.free_memory_in_use",
                            "Ollama sizes against the memory it finds free; here the GPU's memory as the driver "
                            "reports it less the {in_use_bytes} in use, which comes off the layers it can offload.",
                            {arg::gib("in_use_bytes", o.memory_in_use, 2)}));
  else
    notes.push_back(message("ollama.free_memory",
                            "Ollama sizes against the memory it finds free; here the GPU's whole memory as the driver "
                            "reports it, so what other programs use comes off the layers it can offload."));
  if (!c.gpu_usable)
    notes.push_back(message("ollama.cpu_only",
                            "Ollama would run this model on the CPU only: the GPU cannot hold its minimum, the graph "
                            "and two layers."));
  else if (c.layers_offload < c.layers_model)
    notes.push_back(message("ollama.partial_offload",
                            "Ollama offloads {gpu_layers}/{layers} layers to the GPU; {ram_bytes} (weights and KV of "
                            "the other layers, and the token embeddings) stay in system RAM.",
                            {arg::count("gpu_layers", c.layers_offload), arg::count("layers", c.layers_model),
                             arg::bytes("ram_bytes", c.system_ram_bytes)}));
}

}  // namespace vramfit::detail
