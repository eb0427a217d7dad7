#include "memory/activations.hpp"

#include <algorithm>  // std::max, std::any_of, std::none_of
#include <utility>    // std::pair
#include <array>      // std::array

#include "util/byte_math.hpp"
#include "util/text.hpp"
#include "memory/inference.hpp"  // kMaxContextTokens, kMaxBatch

namespace vramfit {
namespace {

using detail::num;
using detail::Text;

constexpr std::array<std::string_view, 3> kCheckpointingNames{"none", "selective", "full"};

// Bytes per token of one layer, before multiplying by s·b and dividing by t.
struct PerToken {
  std::uint64_t replicated = 0;
  std::uint64_t sharded = 0;
  std::uint64_t scores = 0;
};

// What a normalisation layer keeps for backward: its input (c·h) and fp32 statistics per token:
// LayerNorm mean and rstd (8 B), RMSNorm rstd only (4 B). Fused kernels (Apex, TE, Liger) keep exactly
// this; Hugging Face's Python LlamaRMSNorm keeps an fp32 copy of the input besides (+4h B).
std::uint64_t norm_bytes(const ModelSpec& s, std::uint64_t width, std::uint64_t c) {
  return c * width + (s.norm == NormKind::layer ? 8 : 4);
}

// Attention block. Korthikanti §4.1 for MHA: QKV input 2sbh, Q and K 4sbh, softmax output 2as²b,
// its dropout mask as²b and output 2as²b, V 2sbh, output-projection input 2sbh, dropout mask sbh
// = 11sbh + 5as²b. Generalised:
//  - GQA: K and V are kv·d wide. Eager attention (HF eager, Megatron unfused) expands them to a·d
//    before the matmuls (repeat_kv), so the saved copies are a·d wide; FlashAttention keeps them unexpanded.
//  - FlashAttention keeps q, k, v, its output and a fp32 logsumexp per head and token (4a B): no s² term.
//    Its output is also the o-projection input, so that tensor is counted once.
//  - No dropout: no masks and no dropout output; the softmax output alone is kept (c·a·s per token).
//  - A frozen projection does not keep its input (LoRA on some modules only).
PerToken attention_bytes(const ModelSpec& s, const LayerRun& run, const ActivationOptions& o, std::uint64_t c) {
  PerToken p;
  const auto h = s.hidden_size, a = run.attention_heads();
  const auto& t = o.trainable;
  std::uint64_t q_w = 0, k_w = 0, v_w = 0, out_w = 0;
  if (run.mixer == MixerKind::latent_attention) {
    // DeepSeek-V2 §2.1.2: latents (q_lora_rank, kv_lora_rank) each pass an RMSNorm and a linear,
    // then per-head q, k (nope + rope) and v are decompressed.
    const auto& m = run.latent;
    const auto qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    q_w = a * qk;
    k_w = a * qk;
    v_w = a * m.v_head_dim;
    out_w = a * m.v_head_dim;
    const auto latents = m.q_lora_rank + m.kv_lora_rank;
    p.sharded += 2 * c * latents + 8;  // norm inputs + up-projection inputs, two rstd
    if (t.q || t.k || t.v) p.replicated += c * h;
  } else {
    const auto d = run.attention.head_dim;
    const auto kv = run.attention.kv_heads;
    q_w = a * d;
    const auto kv_w = kv * d;
    k_w = o.flash_attention ? kv_w : a * d;
    v_w = k_w;
    out_w = a * d;
    if (t.q || t.k || t.v) p.replicated += c * h;  // QKV input (2sbh)
    if (s.qk_norm) p.sharded += c * (q_w + kv_w) + 4 * (a + kv);
  }
  if (o.flash_attention) {
    p.sharded += c * (q_w + k_w + v_w) + c * out_w + 4 * a;
  } else {
    p.sharded += c * (q_w + k_w) + c * v_w;  // QK^T operands (4sbh) and V (2sbh)
    if (t.o) p.sharded += c * out_w;          // output-projection input (2sbh)
    p.scores = o.dropout ? (2 * c + 1) * a * o.sequence : c * a * o.sequence;  // 5as²b with dropout
  }
  if (o.dropout) p.replicated += h;  // dropout mask after the output projection (sbh)
  return p;
}

// Feed-forward internals of one expert or dense MLP of width i, not counting its input.
// Plain (GeLU): activation input and output (Korthikanti: 8sbh + 8sbh for i = 4h).
// Gated (SwiGLU, HF eager): down(act(gate(x)) · up(x)) keeps gate(x) for the activation's backward,
// act(gate(x)) and up(x) for the product's backward, and the product for the down projection:
// 4i instead of 2i. (Megatron's fused swiglu keeps the 2i gate/up output and recomputes the rest: 3i.)
std::uint64_t mlp_internal_bytes(const ModelSpec& s, const LinearSet& t, std::uint64_t inner, std::uint64_t c) {
  const std::uint64_t kept_width = (s.gated_mlp ? 3 : 1) * inner + (t.down ? inner : 0);
  return c * kept_width;
}

std::uint64_t lora_modules(const ModelSpec& s, const LinearSet& t, bool attention) {
  if (attention) return std::uint64_t{t.q} + t.k + t.v + t.o;
  return std::uint64_t{s.gated_mlp && t.gate} + t.up + t.down;
}

PerToken mlp_bytes(const ModelSpec& s, const MlpBlock& m, const ActivationOptions& o, std::uint64_t c) {
  PerToken p;
  if (m.kind == MlpKind::none) return p;
  const auto h = s.hidden_size;
  const auto& t = o.trainable;
  const bool input_kept = t.up || (s.gated_mlp && t.gate);
  if (o.dropout) p.replicated += h;  // dropout mask after the MLP (sbh)
  const std::uint64_t lora = o.lora_rank * c;
  if (m.kind == MlpKind::dense) {
    if (input_kept) p.replicated += c * h;  // first linear's input (2sbh)
    p.sharded += mlp_internal_bytes(s, t, m.intermediate, c) + lora * lora_modules(s, t, false);
    return p;
  }
  // MoE (Mixtral/DeepSeek style): every token is copied to k experts. Each routed copy keeps the
  // expert's input (if its first linears train), its internals, and the expert output that the
  // routing-weight product keeps for the router's gradient (c·h). The router keeps its fp32 softmax
  // (4·E B). Shared experts see the block input like a dense MLP.
  if (input_kept || t.router) p.replicated += c * h;
  p.replicated += 4 * m.routed_experts;
  const std::uint64_t per_expert = (input_kept ? c * h : 0) + mlp_internal_bytes(s, t, m.expert_intermediate, c) +
                                   c * h + lora * lora_modules(s, t, false);
  p.sharded += m.experts_per_token * per_expert;
  p.sharded += m.shared_experts * (mlp_internal_bytes(s, t, m.shared_width(), c) + lora * lora_modules(s, t, false));
  return p;
}

struct Scale {
  std::uint64_t tokens;  // s·b
  std::uint64_t t;
  bool sp;
};

std::optional<LayerActivationBytes> layer_bytes(const PerToken& p, const Scale& k, const ActivationOptions& o,
                                                std::uint64_t c, std::uint64_t h) {
  const auto rep = detail::mul_div_ceil(k.tokens, p.replicated, k.sp ? k.t : 1);
  const auto sh = detail::mul_div_ceil(k.tokens, p.sharded, k.t);
  const auto sc = detail::mul_div_ceil(k.tokens, p.scores, k.t);
  const auto input = detail::mul_div_ceil(k.tokens, c * h, k.sp ? k.t : 1);  // a layer's input (2sbh)
  if (!rep || !sh || !sc || !input) return std::nullopt;
  LayerActivationBytes out;
  out.replicated = *rep;
  out.sharded = *sh;
  out.scores = *sc;
  detail::CheckedSum full;
  full.add(*rep).add(*sh).add(*sc);
  if (full.overflow()) return std::nullopt;
  out.full = full.value();
  switch (o.checkpointing) {
    case Checkpointing::none: out.kept = out.full; break;
    case Checkpointing::selective: out.kept = out.replicated + out.sharded; break;
    case Checkpointing::full: out.kept = *input; break;
  }
  return out;
}

Error overflow() { return make_error("sequence", "sequence × micro-batch makes the activations overflow 64 bits"); }

}  // namespace

std::string_view checkpointing_name(Checkpointing c) noexcept { return kCheckpointingNames[static_cast<std::size_t>(c)]; }

std::optional<Checkpointing> parse_checkpointing(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kCheckpointingNames.size(); ++i)
    if (kCheckpointingNames[i] == name) return static_cast<Checkpointing>(i);
  if (name == "off") return Checkpointing::none;
  if (name == "on") return Checkpointing::full;
  return std::nullopt;
}

std::string checkpointing_names() { return "none, selective, full"; }

std::uint64_t ActivationEstimate::kept_for_layers(std::uint64_t first, std::uint64_t count) const noexcept {
  const std::uint64_t end = std::min(num_layers, first + count);
  std::uint64_t kept = 0;  // ≤ layers, which did not overflow
  for (const auto& run : runs) {
    const std::uint64_t lo = std::max(first, run.first_layer), hi = std::min(end, run.first_layer + run.count);
    if (lo < hi) kept += (hi - lo) * run.layer.kept;
  }
  return kept;
}

const LayerActivationBytes& ActivationEstimate::largest_layer() const noexcept {
  const RunActivations* largest = &runs.front();
  for (const auto& run : runs)
    if (run.layer.full > largest->layer.full) largest = &run;
  return largest->layer;
}

const LayerActivationBytes& ActivationEstimate::layer(std::uint64_t index) const noexcept {
  for (const auto& run : runs)
    if (index < run.first_layer + run.count) return run.layer;
  return runs.back().layer;
}

Result<ActivationEstimate> estimate_activations(const ModelSpec& spec, const ActivationOptions& o) {
  if (spec.is_bare())
    return make_error("model", "activations need the architecture (layers, hidden size, heads): give a preset or a config.json");
  if (auto ok = validate(spec); !ok) return ok.error();
  if (o.sequence < 1 || o.sequence > kMaxContextTokens)
    return make_error("sequence", "must be between 1 and " + num(kMaxContextTokens) + " tokens, got " + num(o.sequence));
  if (o.micro_batch < 1 || o.micro_batch > kMaxBatch)
    return make_error("micro-batch", "must be between 1 and " + num(kMaxBatch) + ", got " + num(o.micro_batch));
  const std::uint64_t heads = spec.attention_heads_gcd();
  if (o.tensor_parallel < 1 || (heads && o.tensor_parallel > heads))
    return make_error("tp", "must be between 1 and the number of attention heads (" + num(heads) +
                                "), got " + num(o.tensor_parallel));
  for (const auto& run : spec.layers)
    if (run.keeps_state())
      return make_error("mode", "training activations of " + std::string(mixer_label(run)) +
                                    " layers are not modelled yet; only inference is estimated for this model");

  const std::uint64_t c = dtype_info(o.dtype).bits / 8 ? dtype_info(o.dtype).bits / 8 : 1;
  const std::uint64_t h = spec.hidden_size;
  const auto tokens = checked_mul(o.sequence, o.micro_batch);
  if (!tokens) return overflow();
  const Scale scale{*tokens, o.tensor_parallel, o.sequence_parallel};

  // Norms: every layer keeps norms_per_layer inputs (2 × 2sbh = 4sbh in Korthikanti's LayerNorm count).
  PerToken norms;
  norms.replicated = spec.norms_per_layer * norm_bytes(spec, h, c);
  const std::uint64_t lora_attention = o.lora_rank * c * lora_modules(spec, o.trainable, true);

  ActivationEstimate e;
  e.num_layers = spec.num_layers();
  detail::CheckedSum layers;
  std::uint64_t first = 0;
  for (const auto& run : spec.layers) {
    const PerToken attention = run.keeps_tokens() ? attention_bytes(spec, run, o, c) : PerToken{};
    const PerToken mlp = mlp_bytes(spec, run.mlp, o, c);
    PerToken p;
    p.replicated = norms.replicated + attention.replicated + mlp.replicated;
    p.sharded = attention.sharded + (run.keeps_tokens() ? lora_attention : 0) + mlp.sharded;
    p.scores = attention.scores;
    auto bytes = layer_bytes(p, scale, o, c, h);
    if (!bytes) return overflow();
    e.runs.push_back({first, run.count, *bytes});
    layers.add({run.count, bytes->kept});
    if (o.checkpointing == Checkpointing::full) e.recompute_peak = std::max(e.recompute_peak, bytes->full);
    first += run.count;
  }
  if (layers.overflow()) return overflow();
  e.layers = layers.value();

  // Outside the layers (Korthikanti §4.3): the embedding dropout mask (sbh), the final norm's and the
  // output layer's inputs (2sbh each), and the cross-entropy's fp32 copy of the logits (4sbV), the last
  // split over t by Megatron's vocabulary-parallel loss. The log-softmax gradient has the same size and
  // coexists with it while the loss runs backward: counted as a temporary buffer.
  const std::uint64_t head_div = o.sequence_parallel ? o.tensor_parallel : 1;
  auto emb = detail::mul_div_ceil(*tokens, o.dropout ? h : 0, head_div);
  const std::uint64_t head_width =
      (spec.final_norm ? norm_bytes(spec, h, c) : 0) + (spec.has_lm_head && o.lm_head_trains ? c * h : 0);
  auto head = detail::mul_div_ceil(*tokens, head_width, head_div);
  auto logits = spec.has_lm_head ? detail::mul_div_ceil(*tokens, 4 * spec.vocab_size, o.tensor_parallel)
                                 : std::optional<std::uint64_t>(0);
  if (!emb || !head || !logits) return overflow();
  e.embedding = *emb;
  e.head = *head;
  e.logits = *logits;
  e.logits_gradient = *logits;
  detail::CheckedSum total;
  total.add(e.layers).add(e.recompute_peak).add(e.embedding).add(e.head).add(e.logits);
  if (total.overflow()) return overflow();
  e.total = total.value();

  // Explanations.
  Text layer_formula, layer_values;
  if (o.flash_attention)
    layer_formula << "s·b·(norm inputs + block inputs + q, k, v, output + logsumexp + MLP internals)";
  else
    layer_formula << "s·b·(norm inputs + block inputs + q, k, v, output + MLP internals) + s²·b·a·("
                  << (o.dropout ? "2c + 1" : "c") << ")";
  if (o.tensor_parallel > 1)
    layer_formula << (o.sequence_parallel ? ", ÷ t (tensor + sequence parallel)" : ", inner parts ÷ t (tensor parallel)");
  layer_values << "s = " << o.sequence << ", b = " << o.micro_batch << ", c = " << c << " B: ";
  // One figure per kind of layer, in the order they first appear.
  std::vector<std::pair<std::string_view, const LayerActivationBytes*>> kinds;
  const LayerActivationBytes* scored = nullptr;  // the MoE layer's scores when there is one
  for (std::size_t i = 0; i < e.runs.size(); ++i) {
    const LayerRun& run = spec.layers[i];
    const std::string_view kind = run.mlp.kind == MlpKind::moe ? "MoE" : run.mlp.kind == MlpKind::dense ? "dense" : "MLP-free";
    if (std::none_of(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; }))
      kinds.emplace_back(kind, &e.runs[i].layer);
    if (!scored || run.mlp.kind == MlpKind::moe) scored = &e.runs[i].layer;
  }
  for (const auto& [kind, bytes] : kinds)
    layer_values << (kind == kinds.front().first ? "" : ", ") << bytes->full << " B per " << kind << " layer";
  layer_values << " (of which attention scores " << scored->scores << " B)";
  e.explanations.push_back(
      {"activations.layer", layer_formula.str(), layer_values.str(),
       "Korthikanti et al. 2022 §4.1 (sbh(34 + 5as/h)), generalised to GQA, gated MLPs, RMSNorm, MoE, FlashAttention"});
  std::string kept_formula, kept_source;
  switch (o.checkpointing) {
    case Checkpointing::none:
      kept_formula = "L × layer";
      kept_source = "no recomputation: every layer keeps everything";
      break;
    case Checkpointing::selective:
      kept_formula = "L × (layer − attention scores)";
      kept_source = "Korthikanti §5 selective recompute drops the 5as/h term";
      break;
    case Checkpointing::full:
      kept_formula = "L × s·b·h·c (each layer's input) + one layer's full set while it is recomputed";
      kept_source = "Korthikanti Table 2 (2sbh per layer); the recomputed layer is live during its backward";
      break;
  }
  e.explanations.push_back({"activations.layers", kept_formula,
                            (Text() << e.num_layers << " layers: " << e.layers << " B + " << e.recompute_peak << " B").str(),
                            kept_source});
  e.explanations.push_back(
      {"activations.logits", "4 × s × b × vocab / t (fp32 log-softmax kept by the loss)",
       (Text() << "4 × " << o.sequence << " × " << o.micro_batch << " × " << (spec.has_lm_head ? spec.vocab_size : 0)
               << " / " << o.tensor_parallel << " = " << e.logits << " B")
           .str(),
       "Korthikanti §4.3 (4sbv/t); HF upcasts logits to fp32 for the loss"});
  e.explanations.push_back({"activations", "layers + recompute peak + embedding mask + head inputs + logits",
                            (Text() << e.layers << " + " << e.recompute_peak << " + " << e.embedding << " + " << e.head
                                    << " + " << e.logits << " = " << e.total << " B")
                                .str(),
                            "one micro-batch, all layers (pipeline stages take their share)"});

  if (o.flash_attention && o.checkpointing == Checkpointing::selective)
    e.notes.push_back("Selective recomputation saves nothing more with FlashAttention: it already recomputes the "
                      "attention scores in its backward pass.");
  if (o.flash_attention && o.dropout)
    e.notes.push_back("FlashAttention regenerates attention-dropout masks from the RNG state: no s² mask is kept.");
  const bool grouped = std::any_of(spec.layers.begin(), spec.layers.end(), [](const LayerRun& r) {
    return r.mixer == MixerKind::attention && r.attention.kv_heads < r.attention.heads;
  });
  if (!o.flash_attention && grouped)
    e.notes.push_back("Eager attention expands grouped K/V heads to all query heads (repeat_kv) before the "
                      "matmuls, so the saved K and V are heads × head_dim wide.");
  return e;
}

std::optional<std::uint64_t> korthikanti_layer_bytes(std::uint64_t s, std::uint64_t b, std::uint64_t h,
                                                     std::uint64_t a, std::uint64_t t, bool sequence_parallel,
                                                     Checkpointing checkpointing) noexcept {
  if (t == 0) return std::nullopt;
  const auto sbh = detail::product({s, b, h});
  const auto as2b = detail::product({5, a, s, s, b});  // 5as²b = sbh · 5as/h
  if (!sbh || !as2b) return std::nullopt;
  if (checkpointing == Checkpointing::full) return checked_mul(*sbh, 2);
  const std::uint64_t scores = checkpointing == Checkpointing::selective ? 0 : *as2b;
  detail::CheckedSum sharded;
  std::uint64_t replicated_factor = 0;
  if (t == 1) {
    sharded.add({34, *sbh});  // sbh(34 + 5as/h)
  } else if (sequence_parallel) {
    sharded.add({34, *sbh});  // sbh(34/t + 5as/(ht))
  } else {
    replicated_factor = 10;   // sbh(10 + 24/t + 5as/(ht))
    sharded.add({24, *sbh});
  }
  sharded.add(scores);
  const auto rep = checked_mul(replicated_factor, *sbh);
  if (sharded.overflow() || !rep) return std::nullopt;
  return checked_add(*rep, ceil_div(sharded.value(), t));
}

}  // namespace vramfit
