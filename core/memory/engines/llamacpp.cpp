#include "memory/engines/llamacpp.hpp"

#include <algorithm>  // std::min, std::max
#include <cstddef>    // std::ptrdiff_t
#include <string>     // std::to_string
#include <vector>     // std::vector

#include "memory/inference_steps.hpp"
#include "util/byte_math.hpp"
#include "util/units.hpp"

namespace vramfit {

std::optional<std::uint64_t> parse_llamacpp_build(std::string_view v) noexcept {
  if (!v.empty() && (v.front() == 'b' || v.front() == 'B')) v.remove_prefix(1);
  if (v.empty() || v.size() > 7) return std::nullopt;
  std::uint64_t build = 0;
  for (const char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    build = build * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return build;
}

std::string llamacpp_version_name(std::uint64_t build) { return "b" + std::to_string(build); }

}  // namespace vramfit

namespace vramfit::detail {

std::uint64_t llamacpp_compute_buffer(std::uint64_t ub, std::uint64_t n_kv, std::uint64_t n_head, std::uint64_t n_embd,
                                      std::uint64_t n_vocab, std::uint64_t n_ff, bool flash_attn) {
  const std::uint64_t attention_per_token =
      flash_attn ? n_kv * 2 + 4 * n_embd * 4 : n_kv * n_head * 4 + n_kv * 4 + 4 * n_embd * 4;
  const std::uint64_t output_per_token = (n_vocab + n_embd) * 4;
  const std::uint64_t ffn_per_token = (2 * n_embd + 3 * n_ff) * 4;  // residual, normed input, gate, up, product
  const auto peak = std::max({attention_per_token, output_per_token, ffn_per_token});
  const auto bytes = checked_mul(ub, peak);
  return bytes ? *bytes : ~0ULL;
}

// A vision model's GGUF file holds the language model alone: llama.cpp's converter writes the vision tower to a
// separate mmproj file (convert_hf_to_gguf.py --mmproj), which llama-server loads only when given --mmproj.
bool llamacpp_vision_tower_apart(const ModelSpec& spec, const InferenceOptions& o) {
  return o.engine == Engine::llamacpp && spec.vision_params > 0 && !o.mmproj_offload;
}

namespace {

Message vision_tower_apart_note(const ModelSpec& spec) {
  return message("llamacpp.mmproj_apart",
                 "The vision tower ({params} parameters) is not counted: llama.cpp keeps it in a separate mmproj file "
                 "(about {mmproj_bytes} in F16), which llama-server loads only with --mmproj.",
                 {arg::count("params", spec.vision_params), arg::bytes("mmproj_bytes", 2 * spec.vision_params)});
}

// The KV cells and state slots of the layers -ngl puts on the GPU: llama.cpp offloads the last n_gpu_layers
// repeating layers (llama_model::load_tensors, i_gpu_start = n_layer − n_gpu_layers), each with its own cache.
Result<KvCacheEstimate> llamacpp_gpu_cache(const ModelSpec& spec, const InferenceEstimate& e, const LlamaCppBuffers& b,
                                           const InferenceOptions& o, const KvLayout& layout) {
  if (b.gpu_layers == b.total_layers) return e.kv;
  if (!b.gpu_layers) return KvCacheEstimate{};
  const auto every_layer = expand_runs(spec.layers);
  ModelSpec on_gpu = spec;
  on_gpu.layers =
      compress_runs(std::vector<LayerRun>(every_layer.end() - static_cast<std::ptrdiff_t>(b.gpu_layers), every_layer.end()));
  auto kv = estimate_kv_cache(on_gpu, e.kv_dtype, b.n_ctx, 1, layout);
  if (kv) kv.value().state_bytes = kv.value().state_bytes_per_sequence * o.batch;
  return kv;
}

}  // namespace

// llama.cpp: n_ctx cells for all sequences, the layers -ngl puts on the GPU, and the GPU compute buffer.
std::optional<Error> add_llamacpp_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                         const InferenceOptions& o, const KvLayout& layout) {
  LlamaCppBuffers b;
  b.build = o.llamacpp_build;
  b.n_ctx = o.context_tokens * o.batch;
  b.n_ubatch = std::min({o.n_ubatch, kLlamaNBatch, b.n_ctx});
  b.flash_attn = o.attention == Attention::sdpa;
  const std::uint64_t layers = spec.num_layers();
  b.total_layers = layers;
  b.gpu_layers = std::min(o.gpu_layers.value_or(layers + 1), layers);
  b.output_on_gpu = o.gpu_layers.value_or(layers + 1) > layers;
  // The graph is reserved for the widest layer: most heads, widest q, widest FFN; the full-attention layers see
  // every cell, windowed ones at most the window.
  bool any_full = false;
  std::uint64_t heads = 0, q_width = 0, n_ff = 0;
  for (const LayerRun& run : spec.layers) {
    if (run.keeps_tokens())
      any_full = any_full || !(run.mixer == MixerKind::attention && (run.attention.window || run.attention.chunk));
    heads = std::max(heads, run.attention_heads());
    q_width = std::max(q_width, run.query_width());
    n_ff = std::max(n_ff, run.mlp.kind == MlpKind::moe ? run.mlp.experts_per_token * run.mlp.expert_intermediate
                                                        : run.mlp.intermediate);
  }
  w.llama_n_kv = any_full ? b.n_ctx : std::min(b.n_ctx, e.kv.window_cells);
  const std::uint64_t n_embd = std::max(spec.hidden_size, q_width);
  b.compute_buffer_bytes = llamacpp_compute_buffer(b.n_ubatch, w.llama_n_kv, heads, n_embd,
                                                   spec.vocab_size, n_ff, b.flash_attn);
  b.compute_buffer_other_bytes = llamacpp_compute_buffer(b.n_ubatch, w.llama_n_kv, heads, n_embd,
                                                         spec.vocab_size, n_ff, !b.flash_attn);
  b.compute_buffer_layers_bytes = llamacpp_compute_buffer(b.n_ubatch, w.llama_n_kv, heads, n_embd, 0, n_ff,
                                                                  b.flash_attn);
  b.output_buffer_bytes = spec.vocab_size * o.batch * 4;
  // KV of this many cells for all sequences: recompute per sequence-less n_ctx. The recurrent state has one slot
  // per sequence (n_seq_max = batch), whatever the cell count.
  auto kv_cells = estimate_kv_cache(spec, e.kv_dtype, b.n_ctx, 1, layout);
  if (!kv_cells) return kv_cells.error();
  e.kv = kv_cells.value();
  e.kv.state_bytes = e.kv.state_bytes_per_sequence * o.batch;
  auto gpu_cache = llamacpp_gpu_cache(spec, e, b, o, layout);
  if (!gpu_cache) return gpu_cache.error();
  const auto& wd = e.weight_detail;
  // The mmproj file's tensors (weights_bytes counts the vision tower in F16, with the other tensors): clip loads them
  // onto the GPU whatever -ngl says (mtmd_context_params.use_gpu, --no-mmproj-offload clears it).
  std::uint64_t mmproj = 0;
  for (const WeightGroup& g : wd.groups) mmproj += g.what == "vision tower" ? g.bytes : 0;
  const std::uint64_t layer_weights = wd.attention + wd.mlp + wd.norms + wd.other - std::min(mmproj, wd.other);
  const std::uint64_t on_gpu_layers = layers ? layer_weights / layers * b.gpu_layers : 0;
  if (o.mmproj_offload) b.mmproj_bytes = mmproj;
  const std::uint64_t gpu_weights = on_gpu_layers + (b.output_on_gpu ? wd.output : 0) + b.mmproj_bytes;
  b.host_weights_bytes = wd.total - gpu_weights;  // token embeddings stay in RAM (get_rows runs on the CPU)
  b.host_kv_bytes = e.kv.bytes - gpu_cache.value().bytes;
  b.host_state_bytes = e.kv.state_bytes - gpu_cache.value().state_bytes;
  b.host_ram_bytes = b.host_weights_bytes + b.host_kv_bytes + b.host_state_bytes + b.output_buffer_bytes;
  e.weights = gpu_weights;
  e.kv_cache = gpu_cache.value().bytes;
  e.state_cache = gpu_cache.value().state_bytes;
  e.kv_allocation.static_bytes = e.kv.bytes;
  e.activations = b.gpu_layers ? b.compute_buffer_bytes : 0;
  e.llamacpp = b;
  return std::nullopt;
}

Explanation llamacpp_activations_explanation(const ModelSpec&, const InferenceOptions&, const InferenceEstimate& e,
                                             const Workings& w) {
  const LlamaCppBuffers& b = *e.llamacpp;
  return {"activations",
          b.flash_attn ? message("explain.activations.formula_llamacpp_flash",
                                 "n_ubatch × max(n_kv × 2 + 16 × n_embd, (n_vocab + n_embd) × 4, (2·n_embd + 3·n_ff) × 4)")
                       : message("explain.activations.formula_llamacpp",
                                 "n_ubatch × max(n_kv × n_head × 4 + n_kv × 4 + 16 × n_embd, (n_vocab + n_embd) × 4, "
                                 "(2·n_embd + 3·n_ff) × 4)"),
          message("explain.activations.values_llamacpp", "{ubatch} ubatch tokens, n_kv {n_kv} → {buffer} B",
                  {arg::count("ubatch", b.n_ubatch), arg::count("n_kv", w.llama_n_kv),
                   arg::count("buffer", b.compute_buffer_bytes)}),
          message("explain.activations.source_llamacpp",
                  "llama.cpp compute buffer (ggml graph reserve, f32); pinned to Llama-3-8B logs: 258.50 MiB at n_ctx "
                  "512, 560.00 MiB at 8192 with -fa off")};
}

// What llama.cpp leaves out of the file it loads, and what stays in system RAM.
void add_llamacpp_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                        const InferenceEstimate& e) {
  if (llamacpp_vision_tower_apart(spec, o) && !o.exact_weights) notes.push_back(vision_tower_apart_note(spec));
  if (e.llamacpp && e.llamacpp->gpu_layers < spec.num_layers())
    notes.push_back(message("llamacpp.partial_offload",
                            "Partial offload: {gpu_layers} of {layers} layers on the GPU; {ram_bytes} stay in system "
                            "RAM.",
                            {arg::count("gpu_layers", e.llamacpp->gpu_layers), arg::count("layers", spec.num_layers()),
                             arg::bytes("ram_bytes", e.llamacpp->host_ram_bytes)}));
}

}  // namespace vramfit::detail
