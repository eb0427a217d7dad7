#pragma once
// The architecture of a transformer model, as far as memory is concerned, and its parameter count.
#include <cstdint>  // std::uint64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "util/result.hpp"

namespace vramfit {

enum class NormKind { rms, layer };  // RMSNorm has a weight vector; LayerNorm a weight and a bias

struct MoeSpec {
  std::uint64_t routed_experts = 0;       // 0: dense model
  std::uint64_t experts_per_token = 0;    // top-k routing
  std::uint64_t shared_experts = 0;       // always-active experts (DeepSeek, Qwen-MoE)
  std::uint64_t expert_intermediate = 0;  // FFN width of one expert
  std::uint64_t shared_intermediate = 0;  // FFN width of one shared expert (0: expert_intermediate)
  std::uint64_t leading_dense_layers = 0; // first k layers keep a dense MLP (DeepSeek first_k_dense_replace)
  bool router_bias = false;               // per-expert score-correction bias (DeepSeek-V3 noaux_tc)
};

struct MlaSpec {  // multi-head latent attention (DeepSeek-V2/V3)
  std::uint64_t q_lora_rank = 0;  // 0: plain q projection
  std::uint64_t kv_lora_rank = 0; // 0: not MLA
  std::uint64_t qk_nope_head_dim = 0;
  std::uint64_t qk_rope_head_dim = 0;
  std::uint64_t v_head_dim = 0;
};

struct ModelSpec {
  std::string id;
  std::string name;
  std::string architecture;  // HF model_type

  std::uint64_t vocab_size = 0;
  std::uint64_t hidden_size = 0;
  std::uint64_t num_layers = 0;
  std::uint64_t num_attention_heads = 0;
  std::uint64_t num_kv_heads = 0;  // = heads for MHA, 1 for MQA, between for GQA
  std::uint64_t head_dim = 0;      // explicit in some configs (Gemma: heads·head_dim ≠ hidden)
  std::uint64_t intermediate_size = 0;
  bool gated_mlp = true;           // SwiGLU/GeGLU: gate, up and down matrices; else up and down
  bool tied_embeddings = false;    // lm_head shares the token-embedding matrix
  bool has_lm_head = true;         // encoders (BERT) have none
  bool causal = true;              // decoder: keeps a KV cache while generating

  NormKind norm = NormKind::rms;
  std::uint64_t norms_per_layer = 2;
  bool final_norm = true;
  bool embedding_norm = false;     // LayerNorm right after the embeddings (BERT)
  bool qkv_bias = false;
  bool qk_norm = false;            // RMSNorm over head_dim on q and k (Qwen3, Gemma 3)
  bool attn_out_bias = false;
  bool mlp_bias = false;

  std::uint64_t learned_positions = 0;  // rows of a learned position table (GPT-2, OPT, BERT)
  std::uint64_t token_types = 0;        // rows of BERT's token-type table
  bool pooler = false;                  // BERT pooler: dense h×h + bias

  std::uint64_t max_context = 0;      // max_position_embeddings
  std::uint64_t default_context = 0;  // what people usually run; 0 = unknown

  // Sliding-window attention: layers flagged in `windowed_layers` keep at most `sliding_window`
  // tokens of KV. Empty flags with a window set means every layer is windowed (Mistral v0.1).
  std::uint64_t sliding_window = 0;
  std::vector<bool> windowed_layers;

  MoeSpec moe;
  MlaSpec mla;

  // Parameters outside the language model (a multimodal config's vision tower and projector):
  // they take weight memory but keep no KV cache.
  std::uint64_t vision_params = 0;

  // Bare mode: only the parameter count is known.
  std::uint64_t bare_params = 0;

  // The weight format the checkpoint ships in, from config.json's quantization_config, as
  // parse_weight_format spells it ("gptq-4bit-128g", "awq-4bit-128g", "nf4", "bnb-int8", "fp8"); empty when
  // unquantized. torch_dtype is not read: it says how the file is stored, not how it must run.
  std::string quantization;

  std::vector<std::string> notes;  // assumptions made while importing, shown to the user

  bool is_bare() const noexcept { return bare_params != 0 && hidden_size == 0; }
  bool is_moe() const noexcept { return moe.routed_experts != 0; }
  bool is_mla() const noexcept { return mla.kv_lora_rank != 0; }
  bool layer_is_windowed(std::uint64_t layer) const noexcept;
};

struct ParamCounts {
  std::uint64_t total = 0;
  std::uint64_t active = 0;     // per token: total minus the experts not routed to
  std::uint64_t embedding = 0;  // token (+position, +type) embeddings
  std::uint64_t lm_head = 0;    // 0 when tied or absent
};

// Checks shapes for consistency (heads divide, nothing zero that must not be) and names the field.
Result<bool> validate(const ModelSpec& spec);

// Exact parameter count from the architecture: the elements of every tensor model_tensors (model/tensors.hpp) lists.
// Bare specs return bare_params. Call validate() first; overflow yields an error.
Result<ParamCounts> count_params(const ModelSpec& spec);

}  // namespace vramfit
