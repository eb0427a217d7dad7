#pragma once
// One decoder layer as memory sees it: its token mixer (what it caches while generating) and its MLP. A model is a
// list of runs of identical layers.
#include <cstdint>      // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace vramfit {

enum class MixerKind {
  attention,         // softmax attention over a KV cache: full, sliding window, chunked or compressed
  latent_attention,  // multi-head latent attention: one compressed latent per token (DeepSeek-V2 §2.1.2)
  linear_attention,  // Gated DeltaNet or Kimi Delta Attention: a fixed recurrent state per sequence (Qwen3.5, Kimi)
  mamba2,            // Mamba2 selective state space: a fixed conv and SSM state per sequence (Nemotron-H)
  none,              // an MLP-only block (Nemotron-H "-", Nemotron-NAS no_op attention)
};

struct AttentionMixer {
  std::uint64_t heads = 0;       // query heads
  std::uint64_t kv_heads = 0;    // = heads for MHA, 1 for MQA
  std::uint64_t head_dim = 0;    // width of one query/key head
  std::uint64_t v_head_dim = 0;  // width of one value head; 0: head_dim
  bool k_eq_v = false;           // one projection and one cached tensor serve as K and V (Gemma 4 attention_k_eq_v)
  bool output_gate = false;      // q_proj also yields a sigmoid gate per head (Qwen3-Next, Qwen3.5)
  bool sinks = false;            // one learned attention-sink logit per head (gpt-oss)
  std::uint64_t window = 0;      // sliding window: the last W tokens are kept (Mistral 7B, Gemma 2-4)
  std::uint64_t chunk = 0;       // chunked local attention: tokens of the current chunk of C only (Llama 4)
  std::uint64_t compress_ratio = 0;  // compressed KV: one entry per r tokens besides the window (DeepSeek-V4)
  // DeepSeek-V4's attention (its inference/model.py Attention): one cached entry of head_dim per token serves as
  // key and value (k_eq_v layers of Gemma 4 still cache two), its last rope_dim carry RoPE; a low-rank query
  // (q_lora_rank); a grouped low-rank output (o_groups blocks of heads · head_dim / o_groups → o_lora_rank each,
  // then one matrix back to hidden). Compressed layers of ratio 4 run a lightning indexer with its own compressed
  // keys of index_head_dim. 0 / false: absent.
  bool one_kv_entry = false;
  std::uint64_t rope_dim = 0;
  std::uint64_t q_lora_rank = 0;
  std::uint64_t o_lora_rank = 0;
  std::uint64_t o_groups = 0;
  std::uint64_t index_heads = 0;
  std::uint64_t index_head_dim = 0;

  std::uint64_t value_dim() const noexcept { return v_head_dim ? v_head_dim : head_dim; }
  // DeepSeek-V4's compressor pools overlapping windows (twice the width) at ratio 4 only (Compressor.overlap).
  std::uint64_t compressor_overlap() const noexcept { return compress_ratio == 4 ? 2 : 1; }
};

struct LatentMixer {  // DeepSeek-V2 §2.1.2
  std::uint64_t heads = 0;
  std::uint64_t q_lora_rank = 0;  // 0: plain q projection
  std::uint64_t kv_lora_rank = 0;
  std::uint64_t qk_nope_head_dim = 0;
  std::uint64_t qk_rope_head_dim = 0;
  std::uint64_t v_head_dim = 0;
  bool output_gate = false;  // a full-rank sigmoid gate on the heads' output before o_proj (Kimi K3 mla_use_output_gate)
  // DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2, GLM-5): its own key of index_head_dim per token
  // is cached beside the latent; 0: none.
  std::uint64_t index_heads = 0;
  std::uint64_t index_head_dim = 0;
};

// The delta-rule linear attentions: Gated DeltaNet (Yang et al. 2024) as Qwen3-Next writes it, and Kimi Delta
// Attention (Kimi Linear, arXiv 2510.26692), a gate per channel instead of per head, with q, k and v of one width.
enum class LinearKind { gated_delta_net, kimi_delta };

struct LinearMixer {
  std::uint64_t key_heads = 0;
  std::uint64_t value_heads = 0;
  std::uint64_t key_head_dim = 0;
  std::uint64_t value_head_dim = 0;
  std::uint64_t conv_kernel = 0;
  LinearKind kind = LinearKind::gated_delta_net;
  // Kimi Delta Attention's output gate: one hidden × heads·dim matrix (Kimi K3 use_full_rank_gate) instead of the
  // low-rank pair through head_dim (Kimi Linear).
  bool full_rank_gate = false;
};

struct MambaMixer {  // Mamba2 (Dao & Gu 2024)
  std::uint64_t heads = 0;
  std::uint64_t head_dim = 0;  // heads · head_dim = the inner width
  std::uint64_t state_size = 0;
  std::uint64_t groups = 0;
  std::uint64_t conv_kernel = 0;

  std::uint64_t inner() const noexcept { return heads * head_dim; }
  std::uint64_t conv_channels() const noexcept { return inner() + 2 * groups * state_size; }
};

enum class MlpKind { dense, moe, none };

struct MlpBlock {
  MlpKind kind = MlpKind::dense;
  std::uint64_t intermediate = 0;         // dense width
  std::uint64_t routed_experts = 0;
  std::uint64_t experts_per_token = 0;    // top-k routing
  std::uint64_t expert_intermediate = 0;  // FFN width of one expert
  std::uint64_t shared_experts = 0;       // always-active experts (DeepSeek, Qwen-MoE)
  std::uint64_t shared_intermediate = 0;  // width of one shared expert; 0: expert_intermediate
  bool router_bias = false;               // per-expert score-correction bias (DeepSeek-V3 noaux_tc)
  bool shared_gate = false;               // a sigmoid gate (hidden_size weights) on the shared expert (Qwen2-MoE)
  // Experts chosen by a fixed table of k experts per token id instead of the router's top-k, and no score
  // bias (DeepSeek-V4's first num_hash_layers layers: Gate.tid2eid).
  bool hash_routed = false;
  std::uint64_t latent = 0;               // routed experts' input/output width when narrower than hidden (0: hidden)
  bool latent_norm = false;               // an RMSNorm over the latent sum before it is projected back (Kimi K3)

  std::uint64_t shared_width() const noexcept { return shared_intermediate ? shared_intermediate : expert_intermediate; }
  // Width of the FFN a token runs through: dense, or its k experts plus the shared ones.
  std::uint64_t active_width() const noexcept;
};

// One sequence's state in a linear-attention or Mamba2 layer, in elements.
struct MixerState {
  std::uint64_t conv = 0;       // the short convolution's last kernel − 1 inputs
  std::uint64_t recurrent = 0;  // the recurrent (SSM or delta-rule) state
};

// The matrix products a token runs through in a token mixer: the weight elements it passes (2 FLOPs each), and the
// width per position of the context its QKᵀ and AV read (2 FLOPs each per position).
struct MixerMatmuls {
  double weights = 0;
  double attention_width = 0;
};

struct LayerRun {
  std::uint64_t count = 1;  // identical layers in a row
  MixerKind mixer = MixerKind::attention;
  AttentionMixer attention;
  LatentMixer latent;
  LinearMixer linear;
  MambaMixer mamba;
  MlpBlock mlp;

  bool same_layer(const LayerRun& other) const noexcept;  // equal in everything but count

  // The token mixer's properties, each one switch over MixerKind in layers.cpp with no default, so that -Wswitch
  // names every property a new kind must answer; the estimators ask these instead of reading the mixer's fields.
  bool keeps_tokens() const noexcept;  // a cache that grows with each token: attention, latent attention
  bool keeps_state() const noexcept;   // a fixed state per sequence: linear attention, Mamba2
  // Query heads of the attention (both kinds); 0 for other mixers.
  std::uint64_t attention_heads() const noexcept;
  // Heads of the per-token cache as tensor parallel divides it: the KV heads; MLA's one latent; 0 without a cache.
  std::uint64_t kv_heads() const noexcept;
  // Width per token of the queries, all heads together (the keys' after GQA repeats them): heads · head_dim, for
  // MLA heads · (qk_nope + qk_rope); 0 without attention.
  std::uint64_t query_width() const noexcept;
  // One sequence's state, in elements; zero for mixers that keep none.
  MixerState state_elements() const noexcept;
  // Live width per token while the mixer runs in a forward pass (residual and normed input included).
  std::uint64_t live_width(std::uint64_t hidden) const noexcept;
  MixerMatmuls matmuls(std::uint64_t hidden) const noexcept;
};

// A decoder whose layers share one shape, as the classic config fields describe it: the same attention in every
// layer (sliding-window in the layers `windowed` marks, in all of them when it is empty and a window is set), a
// dense MLP, or experts after the first `leading_dense` layers.
struct UniformDecoder {
  std::uint64_t layers = 0;
  MixerKind mixer = MixerKind::attention;  // attention or latent_attention
  AttentionMixer attention;
  LatentMixer latent;
  std::vector<bool> windowed;
  MlpBlock dense;  // kind dense
  MlpBlock moe;    // kind moe when the model has experts; else unused
  std::uint64_t leading_dense = 0;
};
std::vector<LayerRun> uniform_layers(const UniformDecoder& decoder);

// Joins neighbouring identical layers into runs.
std::vector<LayerRun> compress_runs(const std::vector<LayerRun>& one_per_layer);
// One entry per layer (count 1 each).
std::vector<LayerRun> expand_runs(const std::vector<LayerRun>& runs);

// What users read of a layer's mixer: "full attention", "sliding-window attention", "Mamba2", ...
std::string_view mixer_label(const LayerRun& run) noexcept;

}  // namespace vramfit
