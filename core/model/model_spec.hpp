#pragma once
// The architecture of a transformer model, as far as memory is concerned, and its parameter count.
#include <cstdint>  // std::uint64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "model/layers.hpp"
#include "model/quant_recipe.hpp"  // TensorFormatRule
#include "util/result.hpp"
#include "util/message.hpp"  // Message

namespace vramfit {

enum class NormKind { rms, layer };  // RMSNorm has a weight vector; LayerNorm a weight and a bias

struct ModelSpec {
  std::string id;
  std::string name;
  std::string architecture;  // HF model_type

  std::uint64_t vocab_size = 0;
  std::uint64_t hidden_size = 0;
  // The decoder layers in order, runs of identical layers joined (model/layers.hpp).
  std::vector<LayerRun> layers;
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
  // Hyper-connections (DeepSeek-V4's mHC): the residual stream is hyper_connections copies of the hidden state,
  // mixed before and after each sub-layer by small learned maps; 0: a plain residual.
  std::uint64_t hyper_connections = 0;
  // Attention residuals (Kimi K3's AttnRes, attn_res_block_size): before each sub-layer and before the final norm the
  // hidden state is a softmax mix of earlier blocks' outputs, scored by a learned vector and an RMSNorm weight of
  // hidden_size each; false: a plain residual.
  bool attention_residuals = false;

  // Training defaults from config.json: dropout probabilities (0 when absent) and the MLP activation as
  // hidden_act / activation_function spell it ("silu", "gelu", "gelu_new"; empty when absent).
  double attention_dropout = 0;  // attention_dropout, attention_probs_dropout_prob, attn_pdrop
  double hidden_dropout = 0;     // hidden_dropout_prob, resid_pdrop, hidden_dropout, dropout
  std::string hidden_act;

  std::uint64_t learned_positions = 0;  // rows of a learned position table (GPT-2, OPT, BERT)
  std::uint64_t token_types = 0;        // rows of BERT's token-type table
  bool pooler = false;                  // BERT pooler: dense h×h + bias

  std::uint64_t max_context = 0;      // max_position_embeddings
  std::uint64_t default_context = 0;  // what people usually run; 0 = unknown

  // Parameters outside the language model (a multimodal config's vision tower and projector):
  // they take weight memory but keep no KV cache.
  std::uint64_t vision_params = 0;

  // The vision tower's shape, as its vision_config gives it (0: not in the config). An image becomes patches of
  // patch_size² pixels; `merge`² neighbouring patches become one token of the language model (Qwen's
  // spatial_merge_size, MoonViT's merge_kernel_size, Gemma 4's pooling_kernel_size); a tower trained at one
  // square image_size (SigLIP, CLIP) resizes every image to it, and tokens_per_image fixes the count where the
  // config says it (Gemma 3's mm_tokens_per_image, Gemma 4's default_output_length).
  struct VisionTower {
    std::string schema;  // "siglip" (SigLIP / CLIP), "qwen" (Qwen3-VL, Qwen3.5), "gemma4", "moonvit"
    std::uint64_t hidden_size = 0;
    std::uint64_t layers = 0;
    std::uint64_t heads = 0;
    std::uint64_t intermediate_size = 0;
    std::uint64_t patch_size = 0;
    std::uint64_t image_size = 0;  // the fixed square side; 0: the tower takes any size (native resolution)
    std::uint64_t merge = 1;       // patches merged per side into one token
    std::uint64_t temporal_patch = 1;  // frames per patch (Qwen's Conv3d: an image is repeated temporal_patch times)
    std::uint64_t tokens_per_image = 0;  // a fixed count the config gives; 0: from the image's patches
    std::uint64_t deepstack = 0;  // Qwen3-VL's deepstack_visual_indexes: more merged features an image token carries
  } vision;

  // Multi-token-prediction layers the checkpoint files hold after the decoder layers (DeepSeek-V3's and GLM's
  // num_nextn_predict_layers, Qwen3.5's mtp_num_hidden_layers): each a decoder layer shaped like the last one, a
  // projection of [embedding; hidden state] (2 · hidden → hidden) and `norms` norms; DeepSeek's and GLM's files keep
  // their own copy of the embeddings and the output head in it too. They are part of the files, not of the model an
  // engine runs unless it drafts tokens with them (MTP speculative decoding).
  struct MtpLayers {
    std::uint64_t layers = 0;
    std::uint64_t norms = 0;
    bool own_embeddings = false;
    std::vector<std::uint64_t> sources;  // the decoder layers each is shaped like (Nemotron-H: its last attention
                                         // and its last experts block); empty: the last layer
  };
  MtpLayers mtp;

  // Bare mode: only the parameter count is known.
  std::uint64_t bare_params = 0;

  // The weight format the checkpoint ships in, from config.json's quantization_config, as
  // parse_weight_format spells it ("gptq-4bit-128g", "awq-4bit-128g", "nf4", "bnb-int8", "fp8"); empty when
  // unquantized. torch_dtype is not read: it says how the file is stored, not how it must run.
  std::string quantization;
  // The checkpoint's recipe around that format: modules it stores otherwise (gpt-oss keeps attention, the router,
  // the embeddings and lm_head in bf16 beside MXFP4 experts). The first rule covering a tensor decides; tensors no
  // rule covers are in `quantization`. They apply while the weights run in `quantization`.
  std::vector<TensorFormatRule> quantization_rules;
  // The KV-cache precision the checkpoint was calibrated for (ModelOpt kv_cache_quant_algo "FP8", a kv_cache_scheme):
  // "fp8", or empty. Engines that read it (vLLM's kv_cache_dtype "auto") default to it.
  std::string checkpoint_kv_dtype;

  // Bytes per element of the linear-attention / Mamba recurrent state as the config asks for it (mamba_ssm_dtype
  // "float32": 4); 0: the engine's default.
  std::uint64_t recurrent_state_element_bytes = 0;

  std::vector<Message> notes;  // assumptions made while importing, shown to the user

  bool is_bare() const noexcept { return bare_params != 0 && hidden_size == 0; }
  std::uint64_t num_layers() const noexcept;
  const LayerRun& layer(std::uint64_t index) const noexcept;  // the run layer `index` (< num_layers()) belongs to
  bool has_moe() const noexcept;     // some layer routes tokens to experts
  bool has_latent() const noexcept;  // some layer caches an MLA latent
  // The query heads every attention layer's shape is divisible by (tensor parallel splits heads); 0 without attention.
  std::uint64_t attention_heads_gcd() const noexcept;
};

struct ParamCounts {
  std::uint64_t total = 0;
  std::uint64_t active = 0;     // per text token: total minus the experts not routed to and the vision tower
  std::uint64_t embedding = 0;  // token (+position, +type) embeddings
  std::uint64_t lm_head = 0;    // 0 when tied or absent

  // Active as model cards count it: a token looks up one row of the input embedding and multiplies none of it, so
  // the cards leave it out and keep the output head (gpt-oss's card: 5.1B of 117B; DeepSeek-V3's README_WEIGHTS:
  // 36.6B including 0.9B for the output head). A tied embedding is the output head, so it stays in.
  std::uint64_t active_excl_embedding() const noexcept { return lm_head ? active - embedding : active; }
};

// Checks shapes for consistency (heads divide, nothing zero that must not be) and names the field.
Result<bool> validate(const ModelSpec& spec);

// Exact parameter count from the architecture: the elements of every tensor model_tensors (model/tensors.hpp) lists.
// Bare specs return bare_params. Call validate() first; overflow yields an error.
Result<ParamCounts> count_params(const ModelSpec& spec);

}  // namespace vramfit
