#include "memory/activations.hpp"

#include <algorithm>  // std::max, std::any_of, std::none_of
#include <optional>  // std::optional
#include <utility>    // std::pair
#include <array>      // std::array
#include <initializer_list>  // std::initializer_list
#include <vector>     // std::vector

#include "util/byte_math.hpp"
#include "util/text.hpp"
#include "memory/inference.hpp"  // kMaxContextTokens, kMaxBatch

namespace vramfit {
namespace {

using detail::Text;

// Names in enum order (checkpointing_name indexes them), then the other spellings parse_checkpointing reads.
constexpr std::array<NamedValue<Checkpointing>, 3> kCheckpointings{
    {{"none", Checkpointing::none}, {"selective", Checkpointing::selective}, {"full", Checkpointing::full}}};
constexpr std::array<NamedValue<Checkpointing>, 2> kCheckpointingAliases{
    {{"off", Checkpointing::none}, {"on", Checkpointing::full}}};

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

// Megatron attention block (Korthikanti §4.1, MHA): QKV input 2sbh, Q and K 4sbh, softmax output 2as²b,
// its dropout mask as²b and output 2as²b, V 2sbh, output-projection input 2sbh, dropout mask sbh
// = 11sbh + 5as²b. Generalised: GQA K and V expanded to a·d before the matmuls; no dropout: no masks and
// the softmax output alone (c·a·s per token); a frozen projection does not keep its input (LoRA).
PerToken megatron_attention_bytes(const ModelSpec& s, const LayerRun& run, const ActivationOptions& o,
                                  std::uint64_t c) {
  PerToken p;
  const auto h = s.hidden_size, a = run.attention_heads();
  const auto& t = o.trainable;
  // K at the queries' width: GQA's heads repeated, MLA's decompressed per head.
  const std::uint64_t q_w = run.query_width(), k_w = q_w;
  std::uint64_t out_w = q_w;
  switch (run.mixer) {
    case MixerKind::latent_attention: {
      // DeepSeek-V2 §2.1.2: latents (q_lora_rank, kv_lora_rank) each pass an RMSNorm and a linear,
      // then per-head q, k (nope + rope) and v are decompressed.
      const auto& m = run.latent;
      out_w = a * m.v_head_dim;
      p.sharded += 2 * c * (m.q_lora_rank + m.kv_lora_rank) + 8;  // norm inputs + up-projection inputs, two rstd
      p.sharded += c * (q_w + k_w) + c * out_w;                   // Q, K and V
      break;
    }
    case MixerKind::attention: {
      const auto kv = run.attention.kv_heads;
      if (s.qk_norm) p.sharded += c * (q_w + kv * run.attention.head_dim) + 4 * (a + kv);
      p.sharded += 3 * c * q_w;  // QK^T operands (4sbh) and V (2sbh)
      break;
    }
    case MixerKind::linear_attention:
    case MixerKind::mamba2:
    case MixerKind::none: break;  // no attention: only layers that keep tokens come here
  }
  if (t.q || t.k || t.v) p.replicated += c * h;  // QKV input (2sbh)
  if (t.o) p.sharded += c * out_w;               // output-projection input (2sbh)
  p.scores = o.attention_dropout ? (2 * c + 1) * a * o.sequence : c * a * o.sequence;  // 5as²b with dropout
  if (o.hidden_dropout) p.replicated += h;  // dropout mask after the projection (sbh)
  return p;
}

// Feed-forward internals of one expert or dense MLP of width i, not counting its input.
// Plain (GeLU): activation input and output (Korthikanti: 8sbh + 8sbh for i = 4h).
// Gated (SwiGLU, HF eager): down(act(gate(x)) · up(x)) keeps gate(x) for the activation's backward,
// act(gate(x)) and up(x) for the product's backward, and the product for the down projection:
// 4i instead of 2i. (Megatron's fused swiglu keeps the 2i gate/up output and recomputes the rest: 3i.)
// transformers' NewGELUActivation (gelu_new, GPT-2) is written in Python: 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³)))
// keeps x, the tanh output, 0.5·x and 1 + tanh: 4i where a fused GELU keeps its input alone.
bool python_tanh_gelu(const ModelSpec& s) {
  return s.hidden_act == "gelu_new" || s.hidden_act == "gelu_fast" || s.hidden_act == "quick_gelu";
}

std::uint64_t mlp_internal_bytes(const ModelSpec& s, const ActivationOptions& o, std::uint64_t inner, std::uint64_t c) {
  const bool hf = o.implementation != AttnImplementation::megatron;
  const std::uint64_t act_width = s.gated_mlp ? 3 : (hf && python_tanh_gelu(s) ? 4 : 1);
  return c * (act_width * inner + (o.trainable.down ? inner : 0));
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
  const bool hf = o.implementation != AttnImplementation::megatron;
  if (o.hidden_dropout) p.replicated += (hf ? o.dropout_mask_bytes : 1) * h;  // dropout mask after the MLP (sbh)
  const std::uint64_t lora = o.lora_rank * c;
  if (m.kind == MlpKind::dense) {
    if (input_kept) p.replicated += c * h;  // first linear's input (2sbh)
    p.sharded += mlp_internal_bytes(s, o, m.intermediate, c) + lora * lora_modules(s, t, false);
    return p;
  }
  // MoE (Mixtral/DeepSeek style): every token is copied to k experts. Each routed copy keeps the
  // expert's input (if its first linears train), its internals, and the expert output that the
  // routing-weight product keeps for the router's gradient (c·h). The router keeps its fp32 softmax
  // (4·E B). Shared experts see the block input like a dense MLP.
  // transformers' MixtralSparseMoeBlock also keeps the top-k indices (int64) and values with their sum (fp32)
  // per token, and per routed copy the two int64 index vectors of torch.where, the copy's routing weight and
  // (torch 1.13's index_add_, as measured) the weighted output it adds back (c·h).
  if (input_kept || t.router) p.replicated += c * h;
  p.replicated += 4 * m.routed_experts + (hf ? 12 * m.experts_per_token + 4 : 0);
  const std::uint64_t per_expert = (input_kept ? c * h : 0) + mlp_internal_bytes(s, o, m.expert_intermediate, c) +
                                   c * h + lora * lora_modules(s, t, false) + (hf ? 16 + c + c * h : 0);
  p.sharded += m.experts_per_token * per_expert;
  p.sharded += m.shared_experts * (mlp_internal_bytes(s, o, m.shared_width(), c) + lora * lora_modules(s, t, false));
  return p;
}

// transformers' normalisations. LlamaRMSNorm upcasts: x.to(fp32).pow(2) keeps the fp32 input (4h, the
// input itself in fp32) and, in torch 1.13 as measured, its squared result too (4h); rsqrt its fp32 result
// (4 B); weight · x.to(dtype) the normalised copy (c·h), for the weight's gradient only: a frozen weight (LoRA)
// keeps none. nn.LayerNorm keeps its input (c·h) and fp32 mean and rstd (8 B) either way. The output is the next
// linear's input, counted there.
std::uint64_t hf_norm_bytes(const ModelSpec& s, const ActivationOptions& o, std::uint64_t width, std::uint64_t c) {
  return s.norm == NormKind::layer ? c * width + 8 : 8 * width + 4 + (o.norms_train ? c * width : 0);
}

// transformers' attention (modeling_llama.py eager_attention_forward / sdpa_attention_forward /
// flash_attention_forward). Every implementation keeps the q/k/v input (c·h) and, after the projection,
// a dropout mask when hidden dropout is on (h B).
//  eager: q after rotary (c·a·d); K and V through repeat_kv, copies a·d wide when grouped (c·a·d each);
//    the scores' softmax output (Llama family: softmax(dtype=fp32) 4·a·s, then its cast to c when c < 4;
//    GPT-2 and BERT take the softmax in the activation dtype: c·a·s); with attention dropout, the mask
//    (a·s) and the dropped copy (c·a·s) instead of the cast; the output's contiguous copy (c·a·d), the
//    o-projection's input.
//  sdpa / flash_attention_2: q, K and V unexpanded (SDPA gets enable_gqa), the output laid out
//    [b, s, heads, d] (also the o-projection's input) and an fp32 log-sum-exp per head (4·a B). No s² term:
//    the attention-dropout mask is regenerated from the RNG state.
PerToken hf_attention_bytes(const ModelSpec& s, const LayerRun& run, const ActivationOptions& o, std::uint64_t c) {
  PerToken p;
  const auto h = s.hidden_size, a = run.attention_heads();
  const auto& t = o.trainable;
  const std::uint64_t q_w = run.query_width(), heads_w = q_w;
  std::uint64_t kv_w = 0, out_w = 0, v_w = 0;
  switch (run.mixer) {
    case MixerKind::latent_attention: {
      const auto& m = run.latent;
      kv_w = q_w;
      out_w = v_w = a * m.v_head_dim;
      p.sharded += (4 + 2 * c) * (m.q_lora_rank + m.kv_lora_rank) + 8;  // two RMSNorms on the latents and their outputs
      break;
    }
    case MixerKind::attention: {
      const auto kv = run.attention.kv_heads;
      out_w = q_w;
      kv_w = v_w = kv * run.attention.head_dim;
      if (s.qk_norm) p.sharded += (4 + c) * (q_w + kv_w) + 4 * (a + kv);
      break;
    }
    case MixerKind::linear_attention:
    case MixerKind::mamba2:
    case MixerKind::none: break;  // no attention: only layers that keep tokens come here
  }
  if (t.q || t.k || t.v) p.replicated += c * h;
  if (o.implementation == AttnImplementation::eager) {
    p.sharded += c * (q_w + 2 * heads_w);  // q, and K, V as repeat_kv hands them to the matmuls
    if (t.o) p.sharded += c * out_w;
    const std::uint64_t softmax = s.norm == NormKind::rms ? 4 : c;
    std::uint64_t per_key = softmax;
    if (o.attention_dropout) per_key += o.dropout_mask_bytes + c;
    else if (softmax != c) per_key += c;
    p.scores = per_key * a * o.sequence;
  } else {
    p.sharded += c * (q_w + kv_w + v_w) + c * out_w + 4 * a;
  }
  if (o.hidden_dropout) p.replicated += o.dropout_mask_bytes * h;
  return p;
}

// One layer's backward temporaries, per token: eager attention's score gradients (the probabilities' gradient
// in c, the softmax's fp32 input gradient and its cast: (2c + 4)·a·s, or 8·a·s in fp32); otherwise the MLP's
// intermediate gradients (c per element of the gated or activated width).
std::uint64_t hf_layer_transient(const ModelSpec& s, const LayerRun& run, const ActivationOptions& o, std::uint64_t c) {
  const std::uint64_t a = run.keeps_tokens() ? run.attention_heads() : 0;
  const std::uint64_t scores = o.implementation == AttnImplementation::eager
                                   ? (c == 4 ? 8 : 2 * c + 4) * a * o.sequence
                                   : 0;
  const auto& m = run.mlp;
  const std::uint64_t inner = m.kind == MlpKind::dense ? m.intermediate
                              : m.kind == MlpKind::moe ? m.experts_per_token * m.expert_intermediate
                                                       : 0;
  return std::max(scores, c * (s.gated_mlp ? 3 : 2) * inner);
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

Error overflow() {
  return make_error("sequence", message("error.activations.overflow",
                                        "sequence × micro-batch makes the activations overflow 64 bits"));
}

// Layers that keep a recurrent state: their training activations are not modelled.
Error state_layers_error(const LayerRun& run) {
  switch (run.mixer) {
    case MixerKind::mamba2:
      return make_error("mode", message("error.activations.mamba2", "training activations of Mamba2 layers are not "
                                                                    "modelled yet; choose mode inference to estimate "
                                                                    "this model"));
    case MixerKind::linear_attention:
    case MixerKind::attention:
    case MixerKind::latent_attention:
    case MixerKind::none: break;
  }
  if (run.linear.kind == LinearKind::kimi_delta)
    return make_error("mode", message("error.activations.kimi_delta", "training activations of Kimi Delta Attention "
                                                                      "layers are not modelled yet; choose mode "
                                                                      "inference to estimate this model"));
  return make_error("mode", message("error.activations.linear_attention", "training activations of linear attention "
                                                                          "layers are not modelled yet; choose mode "
                                                                          "inference to estimate this model"));
}

// Names in enum order (attn_implementation_name indexes them), then the other spellings the parser reads.
constexpr std::array<NamedValue<AttnImplementation>, 4> kAttnImplementations{
    {{"eager", AttnImplementation::eager},
     {"sdpa", AttnImplementation::sdpa},
     {"flash_attention_2", AttnImplementation::flash_attention_2},
     {"megatron", AttnImplementation::megatron}}};
constexpr std::array<NamedValue<AttnImplementation>, 1> kAttnImplementationAliases{
    {{"flash", AttnImplementation::flash_attention_2}}};

bool keeps_scores(const ActivationOptions& o) { return keeps_attention_scores(o.implementation); }

// The per-token bytes of one layer run.
PerToken run_per_token(const ModelSpec& spec, const LayerRun& run, const ActivationOptions& o, std::uint64_t c) {
  const bool hf = o.implementation != AttnImplementation::megatron;
  const std::uint64_t h = spec.hidden_size;
  const std::uint64_t lora_attention = o.lora_rank * c * lora_modules(spec, o.trainable, true);
  PerToken attention;
  if (run.keeps_tokens()) attention = hf ? hf_attention_bytes(spec, run, o, c) : megatron_attention_bytes(spec, run, o, c);
  const PerToken mlp = mlp_bytes(spec, run.mlp, o, c);
  PerToken p;
  // Norms: Megatron's fused kernels keep the input and fp32 statistics (Korthikanti's 4sbh for two LayerNorms).
  p.replicated = spec.norms_per_layer * (hf ? hf_norm_bytes(spec, o, h, c) : norm_bytes(spec, h, c)) +
                 attention.replicated + mlp.replicated;
  p.sharded = attention.sharded + (run.keeps_tokens() ? lora_attention : 0) + mlp.sharded;
  p.scores = attention.scores;
  return p;
}

// Outside the layers. Embedding: a dropout mask (GPT-2 embd_pdrop, BERT hidden dropout) and BERT's embedding
// LayerNorm. Head: the final norm and the lm_head input, or BERT's pooler input (the last layer's output).
// Loss: transformers' ForCausalLMLoss upcasts the logits (logits.float()) and cross_entropy keeps the fp32
// log-softmax (4V) and the shifted labels (int64); Megatron's vocabulary-parallel loss keeps 4V / t. A chunked
// loss keeps neither: it recomputes each chunk's logits in backward.
struct Outside {
  std::uint64_t embedding = 0, head = 0, loss = 0, loss_transient = 0;  // per token
};

Outside outside_per_token(const ModelSpec& spec, const ActivationOptions& o, std::uint64_t c) {
  const bool hf = o.implementation != AttnImplementation::megatron;
  const std::uint64_t h = spec.hidden_size, v = spec.has_lm_head ? spec.vocab_size : 0;
  Outside x;
  x.embedding = (o.hidden_dropout ? (hf ? o.dropout_mask_bytes : 1) * h : 0) + (hf && spec.embedding_norm ? hf_norm_bytes(spec, o, h, c) : 0);
  const std::uint64_t final_norm = spec.final_norm ? (hf ? hf_norm_bytes(spec, o, h, c) : norm_bytes(spec, h, c)) : 0;
  x.head = final_norm + (spec.has_lm_head && o.lm_head_trains ? c * h : 0) +
           (hf && !spec.has_lm_head && spec.pooler ? c * h : 0);
  if (o.loss_chunk_tokens == 0) {
    x.loss = 4 * v + (hf && v ? 8 : 0);
    // Backward: nll_loss's gradient and log_softmax's input gradient, both fp32 [tokens, V]; Megatron
    // computes the gradient in place of the saved softmax (one buffer).
    x.loss_transient = hf ? 8 * v : 4 * v;
  }
  return x;
}

struct LayerSums {
  std::uint64_t layers = 0, recompute_peak = 0, layer_transient = 0;
};

std::optional<LayerSums> add_layers(const ModelSpec& spec, const ActivationOptions& o, std::uint64_t c,
                                    const Scale& scale, ActivationEstimate& e) {
  LayerSums sums;
  detail::CheckedSum layers;
  std::uint64_t first = 0;
  for (const auto& run : spec.layers) {
    auto bytes = layer_bytes(run_per_token(spec, run, o, c), scale, o, c, spec.hidden_size);
    if (!bytes) return std::nullopt;
    e.runs.push_back({first, run.count, *bytes});
    layers.add({run.count, bytes->kept});
    if (o.checkpointing == Checkpointing::full) sums.recompute_peak = std::max(sums.recompute_peak, bytes->full);
    if (o.implementation != AttnImplementation::megatron) {
      const auto transient = detail::mul_div_ceil(scale.tokens, hf_layer_transient(spec, run, o, c), scale.t);
      if (!transient) return std::nullopt;
      sums.layer_transient = std::max(sums.layer_transient, *transient);
    }
    first += run.count;
  }
  if (layers.overflow()) return std::nullopt;
  sums.layers = layers.value();
  return sums;
}

Result<std::uint64_t> checked_options(const ModelSpec& spec, const ActivationOptions& o) {
  if (spec.is_bare())
    return make_error("model", message("error.activations.architecture", "activations need the architecture (layers, "
                                                                       "hidden size, heads): give a preset or a "
                                                                       "config.json"));
  if (auto ok = validate(spec); !ok) return ok.error();
  if (o.sequence < 1 || o.sequence > kMaxContextTokens)
    return make_error("sequence", message("error.tokens_range", "must be between 1 and {max} tokens, got {value}",
                                          {arg::digits("max", kMaxContextTokens), arg::digits("value", o.sequence)}));
  if (o.micro_batch < 1 || o.micro_batch > kMaxBatch)
    return make_error("micro-batch", message("error.range", "must be between 1 and {max}, got {value}",
                                             {arg::digits("max", kMaxBatch), arg::digits("value", o.micro_batch)}));
  const std::uint64_t heads = spec.attention_heads_gcd();
  if (o.tensor_parallel < 1 || (heads && o.tensor_parallel > heads))
    return make_error("tp", message("error.activations.tp_heads",
                                    "must be between 1 and the number of attention heads ({heads}), got {value}",
                                    {arg::digits("heads", heads), arg::digits("value", o.tensor_parallel)}));
  for (const auto& run : spec.layers)
    if (run.keeps_state()) return state_layers_error(run);
  const auto tokens = checked_mul(o.sequence, o.micro_batch);
  if (!tokens) return overflow();
  return *tokens;
}

void explain(const ModelSpec& spec, const ActivationOptions& o, std::uint64_t c, ActivationEstimate& e);

}  // namespace

std::string_view attn_implementation_name(AttnImplementation a) noexcept {
  return kAttnImplementations[static_cast<std::size_t>(a)].name;
}

std::optional<AttnImplementation> parse_attn_implementation(std::string_view name) noexcept {
  if (const auto* entry = find_named(kAttnImplementations, name)) return entry->value;
  if (const auto* entry = find_named(kAttnImplementationAliases, name)) return entry->value;
  return std::nullopt;
}

std::string attn_implementation_names() { return join_names(kAttnImplementations); }

bool keeps_attention_scores(AttnImplementation a) noexcept {
  return a == AttnImplementation::eager || a == AttnImplementation::megatron;
}

std::string_view checkpointing_name(Checkpointing c) noexcept { return kCheckpointings[static_cast<std::size_t>(c)].name; }

std::optional<Checkpointing> parse_checkpointing(std::string_view name) noexcept {
  if (const auto* entry = find_named(kCheckpointings, name)) return entry->value;
  if (const auto* entry = find_named(kCheckpointingAliases, name)) return entry->value;
  return std::nullopt;
}

std::string checkpointing_names() { return join_names(kCheckpointings); }

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
  auto tokens = checked_options(spec, o);
  if (!tokens) return tokens.error();
  const std::uint64_t c = dtype_info(o.dtype).bits / 8 ? dtype_info(o.dtype).bits / 8 : 1;
  const Scale scale{tokens.value(), o.tensor_parallel, o.sequence_parallel};

  ActivationEstimate e;
  e.implementation = o.implementation;
  e.attention_dropout = o.attention_dropout;
  e.hidden_dropout = o.hidden_dropout;
  e.num_layers = spec.num_layers();
  const auto sums = add_layers(spec, o, c, scale, e);
  if (!sums) return overflow();
  e.layers = sums->layers;
  e.recompute_peak = sums->recompute_peak;
  e.layer_transient = sums->layer_transient;

  const Outside x = outside_per_token(spec, o, c);
  const std::uint64_t head_div = o.sequence_parallel ? o.tensor_parallel : 1;
  const std::uint64_t loss_tokens = o.loss_tokens ? std::min(o.loss_tokens, o.sequence) * o.micro_batch : scale.tokens;
  const std::uint64_t chunk = std::min(o.loss_chunk_tokens, loss_tokens);
  const std::uint64_t v = spec.has_lm_head ? spec.vocab_size : 0;
  auto emb = detail::mul_div_ceil(scale.tokens, x.embedding, head_div);
  auto head = detail::mul_div_ceil(scale.tokens, x.head, head_div);
  auto logits = detail::mul_div_ceil(loss_tokens, x.loss, o.tensor_parallel);
  // A chunk's logits in c, their fp32 copy and its gradient live at once while the chunk runs backward.
  auto loss_transient = chunk ? detail::mul_div_ceil(chunk, (c + 8) * v, o.tensor_parallel)
                              : detail::mul_div_ceil(loss_tokens, x.loss_transient, o.tensor_parallel);
  if (!emb || !head || !logits || !loss_transient) return overflow();
  e.embedding = *emb;
  e.head = *head;
  e.logits = *logits;
  e.logits_gradient = *loss_transient;
  e.backward_transient = std::max(e.logits_gradient, e.layer_transient);
  detail::CheckedSum total;
  total.add(e.layers).add(e.recompute_peak).add(e.embedding).add(e.head).add(e.logits);
  if (total.overflow()) return overflow();
  e.total = total.value();
  explain(spec, o, c, e);
  return e;
}

namespace {

Message implementation_source(AttnImplementation a) {
  switch (a) {
    case AttnImplementation::eager:
      return message("explain.activations.layer.source_eager",
                     "transformers v4.46-v4.50 eager_attention_forward (modeling_llama.py), LlamaRMSNorm, LlamaMLP, "
                     "ForCausalLMLoss; measured with tests/measure/activations.py");
    case AttnImplementation::sdpa:
    case AttnImplementation::flash_attention_2:
      return message("explain.activations.layer.source_kernel",
                     "transformers v4.46-v4.50 with {implementation}: the kernel keeps q, k, v, its output and an fp32 "
                     "log-sum-exp (FlashAttention-2, Dao 2023); measured with tests/measure/activations.py",
                     {arg::text("implementation", attn_implementation_name(a))});
    case AttnImplementation::megatron: break;
  }
  return message("explain.activations.layer.source_megatron",
                 "Korthikanti et al. 2022 §4.1 (sbh(34 + 5as/h)), generalised to GQA, gated MLPs, RMSNorm, MoE");
}

// One layer's formula is one sentence of clauses: what the norms and the q/k/v projection keep, what the attention
// keeps, the MLP's part and the hidden-dropout masks; the s² scores where the attention keeps them; how tensor
// parallelism splits it.
Message layer_inputs(const ModelSpec& spec, const ActivationOptions& o) {
  if (o.implementation == AttnImplementation::megatron)
    return message("explain.activations.layer.inputs_megatron", "norm inputs + block inputs");
  if (spec.norm == NormKind::rms)
    return message("explain.activations.layer.inputs_rms",
                   "RMSNorm fp32 input 4h + rstd 4 + normalised c·h per norm + q/k/v input c·h");
  return message("explain.activations.layer.inputs_ln", "LayerNorm input c·h + mean, rstd 8 per norm + q/k/v input c·h");
}

// A fused kernel (SDPA, FlashAttention-2) keeps q, k, v as the model made them and an fp32 log-sum-exp; eager and
// Megatron attention expand grouped K/V heads (repeat_kv) before the matmuls.
Message layer_attention(const ActivationOptions& o) {
  if (keeps_scores(o))
    return message("explain.activations.layer.attention_expanded", "q, k, v (K/V expanded to all heads), o-proj input");
  return message("explain.activations.layer.attention_kernel", "q, k, v (unexpanded), output + fp32 log-sum-exp 4·a");
}

// The s² term per score: Megatron and eager LayerNorm models keep the scores in c (with attention dropout their mask
// and the dropped copy: 2c + 1); transformers' RMSNorm models run softmax(dtype=float32).to(dtype), which keeps the
// fp32 softmax and, below fp32, its cast, or with attention dropout its 1-byte mask and the dropped copy.
Message layer_scores(const ModelSpec& spec, const ActivationOptions& o, std::uint64_t c) {
  if (o.implementation == AttnImplementation::megatron || spec.norm != NormKind::rms)
    return o.attention_dropout ? message("explain.activations.layer.scores_dropped_c", "2c + 1")
                               : message("explain.activations.layer.scores_c", "c");
  if (o.attention_dropout)
    return message("explain.activations.layer.scores_dropped", "4 fp32 softmax + 1 mask + c dropped");
  return c == 4 ? message("explain.activations.layer.scores_softmax", "4 fp32 softmax")
                : message("explain.activations.layer.scores_cast", "4 fp32 softmax + c cast");
}

// `tp`: 0 none, 1 tensor parallel (the inner parts split), 2 tensor + sequence parallel (the whole layer splits).
Message layer_formula(const ModelSpec& spec, const ActivationOptions& o, std::uint64_t c, int tp) {
  const std::initializer_list<MessageArg> parts{arg::message("inputs", layer_inputs(spec, o)),
                                                arg::message("attention", layer_attention(o))};
  Message f = o.hidden_dropout
                  ? message("explain.activations.layer.formula_masks",
                            "s·b·({inputs} + {attention} + MLP input and internals + hidden-dropout masks)", parts)
                  : message("explain.activations.layer.formula", "s·b·({inputs} + {attention} + MLP input and internals)",
                            parts);
  if (keeps_scores(o))
    f = message("explain.activations.layer.with_scores", "{formula} + s²·b·a·({scores})",
                {arg::message("formula", f), arg::message("scores", layer_scores(spec, o, c))});
  if (tp == 2)
    return message("explain.activations.layer.split_sequence", "{formula}, ÷ t (tensor + sequence parallel)",
                   {arg::message("formula", f)});
  if (tp == 1)
    return message("explain.activations.layer.split_tensor", "{formula}, inner parts ÷ t (tensor parallel)",
                   {arg::message("formula", f)});
  return f;
}

// One layer's bytes, per kind of layer: "478429184 B per dense layer (scores 0 B)"; runs alike (a model's sliding
// and full attention layers under SDPA) are named once.
struct LayerKind {
  MlpKind kind;
  std::uint64_t full = 0, scores = 0;
  bool operator==(const LayerKind&) const = default;
};

std::vector<LayerKind> layer_kinds(const ModelSpec& spec, const ActivationEstimate& e) {
  std::vector<LayerKind> out;
  for (std::size_t i = 0; i < e.runs.size(); ++i) {
    const LayerKind k{spec.layers[i].mlp.kind, e.runs[i].layer.full, e.runs[i].layer.scores};
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

Message run_clause(const LayerKind& k) {
  const std::initializer_list<MessageArg> figures{arg::digits("full", k.full), arg::digits("scores", k.scores)};
  switch (k.kind) {
    case MlpKind::dense:
      return message("explain.activations.layer.run_dense", "{full} B per dense layer (scores {scores} B)", figures);
    case MlpKind::moe:
      return message("explain.activations.layer.run_moe", "{full} B per MoE layer (scores {scores} B)", figures);
    case MlpKind::none: break;
  }
  return message("explain.activations.layer.run_mlp_free", "{full} B per MLP-free layer (scores {scores} B)", figures);
}

Message layer_values(const ModelSpec& spec, const ActivationOptions& o, std::uint64_t c, const ActivationEstimate& e) {
  // Each kind once, in the order the layers first bring it, as one clause each.
  std::optional<Message> runs;
  for (const LayerKind& k : layer_kinds(spec, e)) {
    const Message run = run_clause(k);
    runs = runs ? message("explain.activations.layer.runs_more", "{before}, {run}",
                          {arg::message("before", *runs), arg::message("run", run)})
                : run;
  }
  return message("explain.activations.layer.values", "{implementation}, s = {s}, b = {b}, c = {c} B: {runs}",
                 {arg::text("implementation", attn_implementation_name(o.implementation)), arg::digits("s", o.sequence),
                  arg::digits("b", o.micro_batch), arg::digits("c", c), arg::message("runs", runs.value_or(Message()))});
}

void explain_layers(const ModelSpec& spec, const ActivationOptions& o, std::uint64_t c, ActivationEstimate& e) {
  const int tp = o.tensor_parallel <= 1 ? 0 : o.sequence_parallel ? 2 : 1;
  e.explanations.push_back({"activations.layer", layer_formula(spec, o, c, tp), layer_values(spec, o, c, e),
                            implementation_source(o.implementation)});
  Message kept_formula, kept_source;
  switch (o.checkpointing) {
    case Checkpointing::none:
      kept_formula = message("explain.activations.layers.formula_none", "L × layer");
      kept_source = message("explain.activations.layers.source_none", "no recomputation: every layer keeps everything");
      break;
    case Checkpointing::selective:
      kept_formula = message("explain.activations.layers.formula_selective", "L × (layer − attention scores)");
      kept_source = message("explain.activations.layers.source_selective",
                            "Korthikanti §5 selective recompute drops the 5as/h term");
      break;
    case Checkpointing::full:
      kept_formula = message("explain.activations.layers.formula_full",
                             "L × s·b·h·c (each layer's input) + one layer's full set while it is recomputed");
      kept_source = message("explain.activations.layers.source_full",
                            "torch.utils.checkpoint keeps each checkpointed call's inputs; the recomputed layer is live "
                            "during its backward (Korthikanti Table 2: 2sbh per layer)");
      break;
  }
  e.explanations.push_back({"activations.layers", std::move(kept_formula),
                            message("explain.activations.layers.values", "{layers} layers: {kept} B + {recompute} B",
                                    {arg::digits("layers", e.num_layers), arg::digits("kept", e.layers),
                                     arg::digits("recompute", e.recompute_peak)}),
                            std::move(kept_source)});
}

void explain_logits(const ModelSpec& spec, const ActivationOptions& o, ActivationEstimate& e) {
  const bool hf = o.implementation != AttnImplementation::megatron;
  const MessageArg vocab = arg::digits("vocab", spec.has_lm_head ? spec.vocab_size : 0);
  const MessageArg tokens = arg::digits("tokens", o.loss_tokens ? std::min(o.loss_tokens, o.sequence) : o.sequence);
  const MessageArg micro = arg::digits("micro_batch", o.micro_batch), logits = arg::digits("logits", e.logits);
  e.explanations.push_back(
      {"activations.logits",
       o.loss_chunk_tokens ? message("explain.activations.logits.formula_chunked",
                                     "0: the chunked loss recomputes each chunk's logits in backward")
       : hf ? message("explain.activations.logits.formula",
                      "s × b × (4 × vocab fp32 log-softmax + 8 int64 labels) / t")
            : message("explain.activations.logits.formula_megatron", "4 × s × b × vocab / t"),
       o.loss_tokens ? message("explain.activations.logits.values_completion",
                               "vocab {vocab}, {tokens} × {micro_batch} completion tokens = {logits} B",
                               {vocab, tokens, micro, logits})
                     : message("explain.activations.logits.values", "vocab {vocab}, {tokens} × {micro_batch} tokens = {logits} B",
                               {vocab, tokens, micro, logits}),
       hf ? message("explain.activations.logits.source",
                    "transformers ForCausalLMLoss: logits.float(), cross_entropy keeps the log-softmax")
          : message("explain.activations.logits.source_megatron", "Korthikanti §4.3 (4sbv/t)")});
}

void explain(const ModelSpec& spec, const ActivationOptions& o, std::uint64_t c, ActivationEstimate& e) {
  const bool hf = o.implementation != AttnImplementation::megatron;
  explain_layers(spec, o, c, e);
  explain_logits(spec, o, e);
  e.explanations.push_back(
      {"activations", message("explain.activations.formula_micro_batch", "layers + recompute peak + embedding + head inputs + loss"),
       message("explain.activations.values_micro_batch", "{layers} + {recompute} + {embedding} + {head} + {logits} = {total} B",
               {arg::digits("layers", e.layers), arg::digits("recompute", e.recompute_peak),
                arg::digits("embedding", e.embedding), arg::digits("head", e.head), arg::digits("logits", e.logits),
                arg::digits("total", e.total)}),
       message("explain.activations.source_micro_batch", "one micro-batch, all layers (pipeline stages take their share)")});
  e.explanations.push_back(
      {"activations.backward_transient",
       hf ? message("explain.activations.backward_transient.formula",
                    "max(loss backward: fp32 logits gradients 8·vocab per token, one layer's backward: score or MLP "
                    "gradients)")
          : message("explain.activations.backward_transient.formula_megatron",
                    "max(loss backward: fp32 logits gradients 4·vocab per token, one layer's backward: score or MLP "
                    "gradients)"),
       message("explain.activations.backward_transient.values",
               "max({logits}, {layer}) = {transient} B on top of the kept activations at the backward's peak",
               {arg::digits("logits", e.logits_gradient), arg::digits("layer", e.layer_transient),
                arg::digits("transient", e.backward_transient)}),
       message("explain.activations.backward_transient.source",
               "per operation: nll_loss and log_softmax backward each allocate an fp32 [tokens, vocab] gradient; "
               "softmax backward allocates the scores' gradient")});

  if (!keeps_scores(o) && o.checkpointing == Checkpointing::selective)
    e.notes.push_back(message("activations.selective_flash", "Selective recomputation saves nothing more with SDPA / "
                                                           "FlashAttention: it already recomputes the attention "
                                                           "scores in its backward pass."));
  if (!keeps_scores(o) && o.attention_dropout)
    e.notes.push_back(message("activations.dropout_flash",
                              "FlashAttention regenerates attention-dropout masks from the RNG state: no s² mask is kept."));
  const bool grouped = std::any_of(spec.layers.begin(), spec.layers.end(), [](const LayerRun& r) {
    return r.mixer == MixerKind::attention && r.attention.kv_heads < r.attention.heads;
  });
  if (keeps_scores(o) && grouped)
    e.notes.push_back(message("activations.repeat_kv", "Eager attention expands grouped K/V heads to all query heads "
                                                     "(repeat_kv) before the matmuls, so the saved K and V are heads × "
                                                     "head_dim wide."));
}

}  // namespace

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
