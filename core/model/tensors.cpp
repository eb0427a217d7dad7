#include "model/tensors.hpp"

#include <initializer_list>  // std::initializer_list
#include <utility>           // std::move

#include "util/units.hpp"  // checked_mul

namespace vramfit {
namespace {

// A block's norms in the order llama.cpp's Gemma 2 blocks use them (1: parallel-block Falcon, 2: Llama);
// validate() allows at most 16.
constexpr std::array<std::string_view, 16> kBlockNormNames{
    "attn_norm", "ffn_norm", "post_attention_norm", "post_ffw_norm", "norm_4",  "norm_5",  "norm_6",  "norm_7",
    "norm_8",    "norm_9",   "norm_10",             "norm_11",       "norm_12", "norm_13", "norm_14", "norm_15"};

struct FfnNames {
  std::string_view gate, up, down;
};
constexpr FfnNames kDenseFfn{"ffn_gate", "ffn_up", "ffn_down"};
constexpr FfnNames kRoutedFfn{"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"};
// llama.cpp (and Hugging Face's DeepSeek) hold the shared experts side by side as one FFN of their summed width.
constexpr FfnNames kSharedFfn{"ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp"};

class TensorList {
 public:
  TensorList() { tensors_.reserve(48); }
  // Where the tensors added next sit.
  void place(TensorSite site, std::uint64_t first_layer = 0, std::uint64_t layers = 1) {
    site_ = site;
    first_layer_ = first_layer;
    layers_ = layers;
  }
  void add(std::string_view name, std::string_view suffix, TensorRole role, Projection projection,
           std::initializer_list<std::uint64_t> shape, std::uint64_t experts = 1) {
    if (site_ == TensorSite::block && layers_ == 0) return;
    ModelTensor t{name, suffix, role, projection, site_, {}, shape.size(), first_layer_, layers_, experts,
                  experts > 1 ? active_experts_ : experts};
    std::size_t i = 0;
    for (auto d : shape) {
      if (d == 0) return;  // absent (a zero-width optional part)
      t.shape[i++] = d;
    }
    tensors_.push_back(t);
  }
  void weight(std::string_view name, TensorRole role, std::initializer_list<std::uint64_t> shape,
              Projection projection = Projection::none) {
    add(name, ".weight", role, projection, shape);
  }
  void bias(std::string_view name, TensorRole role, std::initializer_list<std::uint64_t> shape) {
    add(name, ".bias", role, Projection::none, shape);
  }
  void norm(const ModelSpec& s, std::string_view name, std::uint64_t width, TensorRole role = TensorRole::norm) {
    weight(name, role, {width});
    if (s.norm == NormKind::layer) bias(name, role, {width});
  }
  // Routed experts each token runs through, for the expert tensors added next.
  void active_experts(std::uint64_t k) { active_experts_ = k; }
  std::vector<ModelTensor>& tensors() { return tensors_; }

 private:
  std::vector<ModelTensor> tensors_;
  TensorSite site_ = TensorSite::input;
  std::uint64_t first_layer_ = 0;
  std::uint64_t layers_ = 1;
  std::uint64_t active_experts_ = 0;
};

// One feed-forward block of width `inner`: gate+up+down (gated) or up+down. experts: 0 for one FFN, else the
// routed experts stacked along a third dimension.
// `width`: the FFN's input and output width (hidden_size, or a latent MoE's latent width).
void add_mlp(TensorList& t, const ModelSpec& s, const FfnNames& names, std::uint64_t inner, std::uint64_t experts,
             std::uint64_t width = 0) {
  const auto h = width ? width : s.hidden_size;
  const auto M = TensorRole::mlp;
  const auto matrix = [&](std::string_view name, Projection p, std::uint64_t in, std::uint64_t out) {
    if (experts) t.add(name, ".weight", M, p, {in, out, experts}, experts);
    else t.add(name, ".weight", M, p, {in, out});
  };
  const auto bias = [&](std::string_view name, std::uint64_t length) {
    if (experts) t.add(name, ".bias", M, Projection::none, {length, experts}, experts);
    else t.add(name, ".bias", M, Projection::none, {length});
  };
  if (s.gated_mlp) matrix(names.gate, Projection::gate, h, inner);
  matrix(names.up, Projection::up, h, inner);
  matrix(names.down, Projection::down, inner, h);
  if (s.mlp_bias) {
    if (s.gated_mlp) bias(names.gate, inner);
    bias(names.up, inner);
    bias(names.down, h);
  }
}

// DeepSeek-V2 §2.1.2: low-rank joint compression of K and V (+ of Q when q_lora_rank is set); names from
// llama.cpp's LLM_ARCH_DEEPSEEK2. DeepSeek-V3.2's lightning indexer (its inference/model.py Indexer: wq_b, wk,
// k_norm as a LayerNorm, weights_proj) adds its own small projections.
void add_latent_attention(TensorList& t, const ModelSpec& s, const LatentMixer& m) {
  const auto h = s.hidden_size;
  const auto a = m.heads;
  const auto A = TensorRole::attention;
  const auto qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
  if (m.q_lora_rank != 0) {
    t.weight("attn_q_a", A, {h, m.q_lora_rank}, Projection::q);
    t.weight("attn_q_a_norm", TensorRole::norm, {m.q_lora_rank});
    t.weight("attn_q_b", A, {m.q_lora_rank, a * qk_head}, Projection::q);
  } else {
    t.weight("attn_q", A, {h, a * qk_head}, Projection::q);
  }
  t.weight("attn_kv_a_mqa", A, {h, m.kv_lora_rank + m.qk_rope_head_dim}, Projection::k);
  t.weight("attn_kv_a_norm", TensorRole::norm, {m.kv_lora_rank});
  t.weight("attn_kv_b", A, {m.kv_lora_rank, a * (m.qk_nope_head_dim + m.v_head_dim)}, Projection::v);
  if (m.output_gate) t.weight("attn_gate", A, {h, a * m.v_head_dim});
  t.weight("attn_output", A, {a * m.v_head_dim, h}, Projection::o);
  if (m.index_head_dim == 0) return;
  t.weight("indexer_q_b", A, {m.q_lora_rank ? m.q_lora_rank : h, m.index_heads * m.index_head_dim});
  t.weight("indexer_k", A, {h, m.index_head_dim});
  t.weight("indexer_k_norm", TensorRole::norm, {m.index_head_dim});
  t.bias("indexer_k_norm", TensorRole::norm, {m.index_head_dim});
  t.weight("indexer_proj", A, {h, m.index_heads});
}

// DeepSeek-V4's Compressor: a learned position bias (ape), a KV and a gate projection of overlap · dim each, and an
// RMSNorm over dim. Names are ours, in llama.cpp's style.
struct CompressorNames {
  std::string_view ape, kv, gate, norm;
};
constexpr CompressorNames kAttentionCompressor{"attn_compressor_ape", "attn_compressor_kv", "attn_compressor_gate",
                                               "attn_compressor_norm"};
constexpr CompressorNames kIndexerCompressor{"indexer_compressor_ape", "indexer_compressor_kv",
                                             "indexer_compressor_gate", "indexer_compressor_norm"};

void add_compressor(TensorList& t, const ModelSpec& s, const CompressorNames& names, const AttentionMixer& m,
                    std::uint64_t dim) {
  const auto A = TensorRole::attention;
  const auto width = m.compressor_overlap() * dim;
  t.weight(names.ape, A, {width, m.compress_ratio});
  t.weight(names.kv, A, {s.hidden_size, width}, Projection::k);
  t.weight(names.gate, A, {s.hidden_size, width});
  t.weight(names.norm, TensorRole::norm, {dim});
}

// DeepSeek-V4's attention as its inference/model.py Attention holds it: per-head sinks, wq_a → q_norm → wq_b, one
// wkv of head_dim with kv_norm, the grouped output wo_a (o_groups × o_lora_rank rows of heads·head_dim/o_groups)
// and wo_b; a Compressor on compressed layers, and at ratio 4 the Indexer (wq_b, weights_proj, its own Compressor
// over index_head_dim).
void add_one_entry_attention(TensorList& t, const ModelSpec& s, const AttentionMixer& m) {
  const auto h = s.hidden_size;
  const auto A = TensorRole::attention;
  const auto q_width = m.heads * m.head_dim;
  t.weight("attn_sinks", A, {m.heads});
  if (m.q_lora_rank) {
    t.weight("attn_q_a", A, {h, m.q_lora_rank}, Projection::q);
    t.weight("attn_q_a_norm", TensorRole::norm, {m.q_lora_rank});
    t.weight("attn_q_b", A, {m.q_lora_rank, q_width}, Projection::q);
  } else {
    t.weight("attn_q", A, {h, q_width}, Projection::q);
  }
  t.weight("attn_kv", A, {h, m.head_dim}, Projection::k);
  t.weight("attn_kv_norm", TensorRole::norm, {m.head_dim});
  if (m.o_lora_rank) {
    t.weight("attn_output_a", A, {q_width / m.o_groups, m.o_groups * m.o_lora_rank}, Projection::o);
    t.weight("attn_output_b", A, {m.o_groups * m.o_lora_rank, h}, Projection::o);
  } else {
    t.weight("attn_output", A, {q_width, h}, Projection::o);
  }
  if (m.compress_ratio) add_compressor(t, s, kAttentionCompressor, m, m.head_dim);
  if (m.index_head_dim == 0) return;
  t.weight("indexer_q_b", A, {m.q_lora_rank ? m.q_lora_rank : h, m.index_heads * m.index_head_dim});
  t.weight("indexer_proj", A, {h, m.index_heads});
  add_compressor(t, s, kIndexerCompressor, m, m.index_head_dim);
}

void add_attention(TensorList& t, const ModelSpec& s, const AttentionMixer& m) {
  if (m.one_kv_entry) return add_one_entry_attention(t, s, m);
  const auto h = s.hidden_size;
  const auto a = m.heads;
  const auto d = m.head_dim;
  const auto dv = m.value_dim();
  const auto kv = m.kv_heads;
  const auto A = TensorRole::attention;
  t.weight("attn_q", A, {h, a * d * (m.output_gate ? 2 : 1)}, Projection::q);
  t.weight("attn_k", A, {h, kv * d}, Projection::k);
  if (!m.k_eq_v) t.weight("attn_v", A, {h, kv * dv}, Projection::v);
  t.weight("attn_output", A, {a * dv, h}, Projection::o);
  if (s.qkv_bias) {
    t.bias("attn_q", A, {a * d * (m.output_gate ? 2 : 1)});
    t.bias("attn_k", A, {kv * d});
    if (!m.k_eq_v) t.bias("attn_v", A, {kv * dv});
  }
  if (s.qk_norm) {
    t.weight("attn_q_norm", TensorRole::norm, {d});
    t.weight("attn_k_norm", TensorRole::norm, {d});
  }
  if (s.attn_out_bias) t.bias("attn_output", A, {h});
  if (m.sinks) t.weight("attn_sinks", A, {a});
}

// Gated DeltaNet as transformers' Qwen3NextGatedDeltaNet holds it: in_proj_qkvz, in_proj_ba, a depthwise conv over
// q, k and v, dt_bias, A_log, a gated RMSNorm over one value head, out_proj.
void add_linear_attention(TensorList& t, const ModelSpec& s, const LinearMixer& m) {
  const auto h = s.hidden_size;
  const auto A = TensorRole::attention;
  const auto keys = m.key_heads * m.key_head_dim, values = m.value_heads * m.value_head_dim;
  t.weight("ssm_in", A, {h, 2 * keys + 2 * values});
  t.weight("ssm_ba", A, {h, 2 * m.value_heads});
  t.weight("ssm_conv1d", A, {m.conv_kernel, 2 * keys + values});
  t.bias("ssm_dt", A, {m.value_heads});
  t.weight("ssm_a", A, {m.value_heads});
  t.weight("ssm_norm", TensorRole::norm, {m.value_head_dim});
  t.weight("ssm_out", A, {values, h});
}

// Kimi Delta Attention as vLLM's KimiDeltaAttention (model_executor/layers/kda.py) holds it: q, k and v projections
// of heads·dim each with their depthwise convs (no bias), the decay gate through head_dim (f_a_proj, f_b_proj) with
// dt_bias of heads·dim and A_log per head, beta per head (b_proj), the output gate (g_a_proj → g_b_proj, or one
// g_proj when full rank), an RMSNorm over one head (o_norm) and o_proj.
void add_kimi_delta_attention(TensorList& t, const ModelSpec& s, const LinearMixer& m) {
  const auto h = s.hidden_size;
  const auto A = TensorRole::attention;
  const auto d = m.key_head_dim, width = m.key_heads * m.key_head_dim;
  t.weight("attn_q", A, {h, width}, Projection::q);
  t.weight("attn_k", A, {h, width}, Projection::k);
  t.weight("attn_v", A, {h, width}, Projection::v);
  for (std::string_view conv : {"ssm_conv1d_q", "ssm_conv1d_k", "ssm_conv1d_v"}) t.weight(conv, A, {m.conv_kernel, width});
  t.weight("ssm_f_a", A, {h, d});
  t.weight("ssm_f_b", A, {d, width});
  t.bias("ssm_dt", A, {width});
  t.weight("ssm_a", A, {m.key_heads});
  t.weight("ssm_beta", A, {h, m.key_heads});
  if (m.full_rank_gate) {
    t.weight("ssm_g", A, {h, width});
  } else {
    t.weight("ssm_g_a", A, {h, d});
    t.weight("ssm_g_b", A, {d, width});
  }
  t.weight("ssm_norm", TensorRole::norm, {d});
  t.weight("attn_output", A, {width, h}, Projection::o);
}

// Mamba2 as transformers' NemotronHMamba2Mixer holds it: in_proj to z, x, B, C and dt; a depthwise conv with bias over
// x, B and C; dt_bias, A_log, D; a gated RMSNorm over the inner width; out_proj. Names from llama.cpp's LLM_ARCH_MAMBA2.
void add_mamba(TensorList& t, const ModelSpec& s, const MambaMixer& m) {
  const auto h = s.hidden_size;
  const auto A = TensorRole::attention;
  t.weight("ssm_in", A, {h, 2 * m.inner() + 2 * m.groups * m.state_size + m.heads});
  t.weight("ssm_conv1d", A, {m.conv_kernel, m.conv_channels()});
  t.bias("ssm_conv1d", A, {m.conv_channels()});
  t.bias("ssm_dt", A, {m.heads});
  t.weight("ssm_a", A, {m.heads});
  t.weight("ssm_d", A, {m.heads});
  t.weight("ssm_norm", TensorRole::norm, {m.inner()});
  t.weight("ssm_out", A, {m.inner(), h});
}

void add_mixer(TensorList& t, const ModelSpec& s, const LayerRun& run) {
  switch (run.mixer) {
    case MixerKind::attention: return add_attention(t, s, run.attention);
    case MixerKind::latent_attention: return add_latent_attention(t, s, run.latent);
    case MixerKind::linear_attention:
      if (run.linear.kind == LinearKind::kimi_delta) return add_kimi_delta_attention(t, s, run.linear);
      return add_linear_attention(t, s, run.linear);
    case MixerKind::mamba2: return add_mamba(t, s, run.mamba);
    case MixerKind::none: return;
  }
}

void add_feed_forward(TensorList& t, const ModelSpec& s, const MlpBlock& m) {
  const auto h = s.hidden_size;
  if (m.kind == MlpKind::dense) return add_mlp(t, s, kDenseFfn, m.intermediate, 0);
  if (m.kind == MlpKind::none) return;
  t.weight("ffn_gate_inp", TensorRole::mlp, {h, m.routed_experts}, Projection::router);
  if (m.hash_routed) t.weight("ffn_gate_tid2eid", TensorRole::mlp, {m.experts_per_token, s.vocab_size});
  else if (m.router_bias) t.bias("exp_probs_b", TensorRole::mlp, {m.routed_experts});
  if (m.latent) {  // Nemotron 3's latent MoE: the routed experts work in a narrower space, entered and left once
    t.weight("ffn_latent_in", TensorRole::mlp, {h, m.latent});
    t.weight("ffn_latent_out", TensorRole::mlp, {m.latent, h});
    if (m.latent_norm) t.weight("ffn_latent_norm", TensorRole::norm, {m.latent});
  }
  t.active_experts(m.experts_per_token);
  add_mlp(t, s, kRoutedFfn, m.expert_intermediate, m.routed_experts, m.latent);
  t.active_experts(0);
  if (m.shared_experts == 0) return;
  add_mlp(t, s, kSharedFfn, m.shared_experts * m.shared_width(), 0);
  if (m.shared_gate) t.weight("ffn_gate_inp_shexp", TensorRole::mlp, {h});
}

// DeepSeek-V4's Block: before attention and before the FFN, one map from the hc copies of the hidden state to
// (2 + hc) · hc mixing weights (hc_*_fn), their base and three scales.
void add_hyper_connections(TensorList& t, const ModelSpec& s) {
  const auto hc = s.hyper_connections;
  if (hc == 0) return;
  const auto mix = (2 + hc) * hc;
  for (std::string_view part : {"attn", "ffn"}) {
    const bool attn = part == "attn";
    t.weight(attn ? "hc_attn_fn" : "hc_ffn_fn", TensorRole::other, {hc * s.hidden_size, mix});
    t.weight(attn ? "hc_attn_base" : "hc_ffn_base", TensorRole::other, {mix});
    t.weight(attn ? "hc_attn_scale" : "hc_ffn_scale", TensorRole::other, {3});
  }
}

// Kimi K3's AttnRes before attention and before the MLP: a scoring vector and its RMSNorm weight each.
void add_attention_residuals(TensorList& t, const ModelSpec& s) {
  if (!s.attention_residuals) return;
  for (std::string_view name : {"attn_res_proj", "attn_res_norm", "ffn_res_proj", "ffn_res_norm"})
    t.weight(name, TensorRole::other, {s.hidden_size});
}

void add_blocks(TensorList& t, const ModelSpec& s) {
  std::uint64_t first = 0;
  for (const LayerRun& run : s.layers) {
    t.place(TensorSite::block, first, run.count);
    for (std::uint64_t k = 0; k < s.norms_per_layer; ++k) t.norm(s, kBlockNormNames[static_cast<std::size_t>(k)], s.hidden_size);
    add_hyper_connections(t, s);
    add_attention_residuals(t, s);
    add_mixer(t, s, run);
    add_feed_forward(t, s, run.mlp);
    first += run.count;
  }
}

std::string full_name(const ModelTensor& t) { return std::string(t.name) + std::string(t.suffix); }

TensorShape shape_of(const ModelTensor& t, std::string name, std::int64_t layer) {
  return TensorShape{std::move(name), std::vector<std::uint64_t>(t.shape.begin(), t.shape.begin() + t.dims), t.role,
                     layer};
}

}  // namespace

std::optional<std::uint64_t> ModelTensor::elements() const noexcept {
  std::uint64_t n = 1;
  for (std::size_t i = 0; i < dims; ++i) {
    const auto next = checked_mul(n, shape[i]);
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

std::vector<ModelTensor> model_tensors(const ModelSpec& s) {
  TensorList t;
  const auto h = s.hidden_size;
  const auto E = TensorRole::embedding;
  t.weight("token_embd", E, {h, s.vocab_size});
  t.weight("position_embd", E, {h, s.learned_positions});
  t.weight("token_types", E, {h, s.token_types});
  if (s.embedding_norm) t.norm(s, "token_embd_norm", h, E);
  add_blocks(t, s);
  t.place(TensorSite::output);
  if (s.hyper_connections) {  // DeepSeek-V4's ParallelHead.hc_head: hc copies → one, before the final norm
    const auto hc = s.hyper_connections;
    t.weight("hc_head_fn", TensorRole::other, {hc * h, hc});
    t.weight("hc_head_base", TensorRole::other, {hc});
    t.weight("hc_head_scale", TensorRole::other, {1});
  }
  if (s.attention_residuals) {  // the mix of every block's output before the final norm
    t.weight("output_res_proj", TensorRole::other, {h});
    t.weight("output_res_norm", TensorRole::other, {h});
  }
  if (s.final_norm) t.norm(s, "output_norm", h);
  if (s.pooler) {
    t.weight("pooler", TensorRole::other, {h, h});
    t.bias("pooler", TensorRole::other, {h});
  }
  if (s.has_lm_head && !s.tied_embeddings) t.weight("output", TensorRole::output, {h, s.vocab_size});
  // The vision tower of a multimodal model (a separate mmproj file in llama.cpp), kept as one 1-D stand-in that
  // enters with the embeddings.
  t.place(TensorSite::input);
  t.add("vision_tower", "", TensorRole::other, Projection::none, {s.vision_params});
  return std::move(t.tensors());
}

std::uint64_t TensorShape::elements() const noexcept {
  std::uint64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Result<std::vector<TensorShape>> enumerate_tensors(const ModelSpec& s) {
  if (s.is_bare())
    return make_error("model", message("model.bare_shapes", "a bare parameter count has no tensor shapes; give the "
                                                            "architecture (config.json, a preset or a model file)"));
  if (auto counts = count_params(s); !counts) return counts.error();  // validates, and rules out overflow below

  const auto tensors = model_tensors(s);
  std::vector<TensorShape> out;
  std::size_t first_block = 0;  // model_tensors lists the block tensors together
  while (first_block < tensors.size() && tensors[first_block].site != TensorSite::block) ++first_block;
  std::size_t after_blocks = first_block;
  while (after_blocks < tensors.size() && tensors[after_blocks].site == TensorSite::block) ++after_blocks;
  for (std::size_t i = 0; i < first_block; ++i) out.push_back(shape_of(tensors[i], full_name(tensors[i]), -1));
  for (std::uint64_t layer = 0; layer < s.num_layers(); ++layer) {
    const std::string prefix = "blk." + std::to_string(layer) + ".";
    for (std::size_t i = first_block; i < after_blocks; ++i) {
      const auto& t = tensors[i];
      if (layer >= t.first_layer && layer - t.first_layer < t.layers)
        out.push_back(shape_of(t, prefix + full_name(t), static_cast<std::int64_t>(layer)));
    }
  }
  for (std::size_t i = after_blocks; i < tensors.size(); ++i)
    out.push_back(shape_of(tensors[i], full_name(tensors[i]), -1));
  return out;
}

std::vector<TensorShape> mtp_tensors(const ModelSpec& s, const std::vector<TensorShape>& decoder) {
  std::vector<TensorShape> out;
  const auto last = static_cast<std::int64_t>(s.num_layers()) - 1;
  if (s.mtp.layers == 0 || last < 0) return out;
  const auto h = s.hidden_size;
  for (std::uint64_t k = 0; k < s.mtp.layers; ++k) {
    const auto layer = last + 1 + static_cast<std::int64_t>(k);
    const std::string prefix = "blk." + std::to_string(layer) + ".";
    const auto add = [&](std::string name, std::vector<std::uint64_t> shape, TensorRole role) {
      out.push_back(TensorShape{prefix + name, std::move(shape), role, layer});
    };
    const auto copy_of = [&](std::int64_t source) {
      for (const auto& t : decoder) {
        if (t.layer != source) continue;
        const auto dot = t.name.find('.', 4);  // "blk.60.attn_q.weight" → "attn_q.weight"
        out.push_back(TensorShape{prefix + t.name.substr(dot + 1), t.shape, t.role, layer});
      }
    };
    if (s.mtp.sources.empty()) copy_of(last);
    for (const auto source : s.mtp.sources) copy_of(static_cast<std::int64_t>(source));
    add("nextn.eh_proj.weight", {2 * h, h}, TensorRole::other);
    const char* norms[] = {"nextn.enorm.weight", "nextn.hnorm.weight", "nextn.shared_head_norm.weight"};
    for (std::uint64_t n = 0; n < s.mtp.norms && n < 3; ++n) add(norms[n], {h}, TensorRole::norm);
    if (!s.mtp.own_embeddings) continue;
    add("nextn.embed_tokens.weight", {h, s.vocab_size}, TensorRole::embedding);
    add("nextn.shared_head_head.weight", {h, s.vocab_size}, TensorRole::output);
  }
  return out;
}

}  // namespace vramfit
