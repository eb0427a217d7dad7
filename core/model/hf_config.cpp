#include "model/hf_config.hpp"

#include <algorithm>    // std::find, std::max
#include <array>        // std::array
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "model/hf_config_json.hpp"
#include "model/hf_layer_patterns.hpp"
#include "model/hf_quantization.hpp"

namespace vramfit {
namespace detail {
namespace {

bool one_of(std::string_view value, std::initializer_list<std::string_view> options) {
  for (auto o : options)
    if (o == value) return true;
  return false;
}

// Architectures whose per-layer state is not a KV cache; a transformer estimate would be silently wrong.
constexpr std::array<std::string_view, 11> kUnsupported{
    "mamba", "mamba2", "jamba", "rwkv", "rwkv5", "rwkv6", "falcon_h1", "zamba", "zamba2", "recurrent_gemma", "bamba"};

// model_types read with their layer patterns (every other Llama-shaped type gets a note that it was read as one).
constexpr std::array<std::string_view, 46> kKnownDecoders{
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3",
    "gemma3_text", "phi3", "deepseek_v2", "deepseek_v3", "deepseek_v32", "granite", "olmo2", "mistral3", "qwen3_next",
    "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text", "qwen3_vl", "qwen3_vl_text", "qwen3_vl_moe",
    "qwen3_vl_moe_text", "gemma4", "gemma4_text", "llama4", "llama4_text", "nemotron_h", "nemotron-nas", "gpt_oss",
    "glm4_moe", "glm4_moe_lite", "glm_moe_dsa", "minimax_m2", "minimax_m3", "kimi_k2", "deepseek_v4", "mimo",
    "mimo_v2_flash", "step3p7", "kimi_linear", "kimi_k3"};

// transformers' per-class default for tie_word_embeddings when the config omits it
// (PretrainedConfig defaults to true; Llama-family classes override it to false).
bool default_tied(std::string_view type) {
  return !one_of(type, {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi3",
                        "deepseek_v2", "deepseek_v3", "granite", "olmo2", "mistral3", "llama4", "llama4_text",
                        "kimi_linear"});
}

void import_gpt2(FieldReader& r, ModelSpec& s, UniformDecoder& d) {
  s.hidden_size = r.uint("n_embd").value_or(768);
  d.layers = r.uint("n_layer").value_or(12);
  d.attention.heads = r.uint("n_head").value_or(12);
  d.attention.kv_heads = d.attention.heads;
  s.vocab_size = r.uint("vocab_size").value_or(50257);
  d.dense.intermediate = r.uint("n_inner").value_or(4 * s.hidden_size);  // n_inner null means 4·n_embd
  s.learned_positions = r.uint("n_positions").value_or(1024);
  s.max_context = s.learned_positions;
  s.norm = NormKind::layer;
  s.gated_mlp = false;
  s.qkv_bias = s.attn_out_bias = s.mlp_bias = true;
  s.tied_embeddings = r.boolean("tie_word_embeddings").value_or(true);
}

void import_opt(FieldReader& r, ModelSpec& s, UniformDecoder& d) {
  s.hidden_size = r.uint("hidden_size").value_or(0);
  d.layers = r.uint("num_hidden_layers").value_or(0);
  d.attention.heads = r.uint("num_attention_heads").value_or(0);
  d.attention.kv_heads = d.attention.heads;
  s.vocab_size = r.uint("vocab_size").value_or(0);
  d.dense.intermediate = r.uint("ffn_dim").value_or(0);
  s.max_context = r.uint("max_position_embeddings").value_or(2048);
  s.learned_positions = s.max_context + 2;  // OPTLearnedPositionalEmbedding keeps an offset of 2 rows
  s.norm = NormKind::layer;
  s.gated_mlp = false;
  const bool bias = r.boolean("enable_bias").value_or(true);
  s.qkv_bias = s.attn_out_bias = s.mlp_bias = bias;
  s.final_norm = r.boolean("do_layer_norm_before").value_or(true);
  s.tied_embeddings = r.boolean("tie_word_embeddings").value_or(true);
  if (auto proj = r.uint("word_embed_proj_dim"); proj && *proj != s.hidden_size)
    r.fail_message("word_embed_proj_dim", message("import.opt_projection",
                                                  "OPT's embedding projection (word_embed_proj_dim != hidden_size) is "
                                                  "not modelled"));
}

void import_bert(FieldReader& r, ModelSpec& s, UniformDecoder& d) {
  s.hidden_size = r.uint("hidden_size").value_or(768);
  d.layers = r.uint("num_hidden_layers").value_or(12);
  d.attention.heads = r.uint("num_attention_heads").value_or(12);
  d.attention.kv_heads = d.attention.heads;
  s.vocab_size = r.uint("vocab_size").value_or(30522);
  d.dense.intermediate = r.uint("intermediate_size").value_or(3072);
  s.learned_positions = r.uint("max_position_embeddings").value_or(512);
  s.max_context = s.learned_positions;
  s.token_types = r.uint("type_vocab_size").value_or(2);
  s.norm = NormKind::layer;
  s.embedding_norm = true;
  s.final_norm = false;  // post-norm: each layer ends in its own LayerNorm
  s.gated_mlp = false;
  s.qkv_bias = s.attn_out_bias = s.mlp_bias = true;
  s.pooler = true;
  s.has_lm_head = false;  // BertModel: the encoder alone
  s.causal = false;       // an encoder keeps no KV cache
  s.notes.push_back(message("import.bert_encoder",
                            "BERT is an encoder: no KV cache is kept; the count includes the pooler as BertModel does."));
}

void import_falcon(FieldReader& r, ModelSpec& s, UniformDecoder& d, std::string_view type) {
  s.hidden_size = r.uint("hidden_size").value_or(0);
  d.layers = r.has("num_hidden_layers") ? r.uint("num_hidden_layers").value_or(0) : r.uint("n_layer").value_or(0);
  const auto heads =
      r.has("num_attention_heads") ? r.uint("num_attention_heads").value_or(0) : r.uint("n_head").value_or(0);
  d.attention.heads = heads;
  s.vocab_size = r.uint("vocab_size").value_or(0);
  const bool new_arch = r.boolean("new_decoder_architecture").value_or(type == "RefinedWeb");
  const bool multi_query = r.boolean("multi_query").value_or(true);
  auto kv = r.has("num_kv_heads") ? r.uint("num_kv_heads") : r.uint("n_head_kv");
  if (new_arch) d.attention.kv_heads = kv.value_or(heads);
  else d.attention.kv_heads = multi_query ? 1 : heads;
  d.dense.intermediate = r.uint("ffn_hidden_size").value_or(4 * s.hidden_size);
  s.max_context = r.uint("max_position_embeddings").value_or(2048);
  s.norm = NormKind::layer;
  s.gated_mlp = false;
  const bool bias = r.boolean("bias").value_or(false);
  s.qkv_bias = s.attn_out_bias = s.mlp_bias = bias;
  // Parallel attention+MLP share one LayerNorm; the new decoder architecture has ln_attn and ln_mlp.
  const bool parallel = r.boolean("parallel_attn").value_or(true);
  s.norms_per_layer = new_arch ? 2 : (parallel ? 1 : 2);
  s.tied_embeddings = r.boolean("tie_word_embeddings").value_or(true);
}

// Dropout and the activation, as the model classes read them: the first key present wins. Read leniently
// (a value of another type is skipped): they set defaults only.
void read_training_fields(const FieldReader& r, ModelSpec& s) {
  const auto first = [&r](std::initializer_list<std::string_view> keys) {
    for (auto key : keys)
      if (const json* v = r.find(key); v && v->is_number()) return v->get<double>();
    return 0.0;
  };
  s.attention_dropout = first({"attention_dropout", "attention_probs_dropout_prob", "attn_pdrop"});
  s.hidden_dropout = first({"hidden_dropout_prob", "resid_pdrop", "hidden_dropout", "dropout"});
  for (auto key : {"hidden_act", "activation_function"})
    if (const json* v = r.find(key); v && v->is_string() && s.hidden_act.empty()) s.hidden_act = v->get<std::string>();
}

// A ViT-style vision tower (SigLIP, CLIP): patch conv + position table + pre-norm encoder layers with
// biased q/k/v/o and a 2-matrix MLP, two LayerNorms per layer, a post-LayerNorm. Counted as the
// transformers SiglipVisionModel holds it; an attention-pooling head (vision_use_head) is refused.
std::uint64_t vision_tower_params(FieldReader& v) {
  const auto h = v.uint("hidden_size").value_or(0);
  const auto inner = v.uint("intermediate_size").value_or(0);
  const auto layers = v.uint("num_hidden_layers").value_or(0);
  const auto patch = v.uint("patch_size").value_or(0);
  const auto image = v.uint("image_size").value_or(0);
  const auto channels = v.uint("num_channels").value_or(3);
  if (v.boolean("vision_use_head").value_or(false))
    v.fail_message("vision_use_head", message("import.vision_head",
                                              "a vision attention-pooling head is not modelled; only false is supported"));
  if (!h || !inner || !layers || !patch || !image || h > 100'000 || inner > 1'000'000 || layers > 1'000 ||
      patch > image || image > 100'000 || channels > 16) {
    v.fail_message("hidden_size", message("import.siglip_sizes",
                                          "the vision tower needs hidden_size (1 to 100,000), intermediate_size (1 to "
                                          "1,000,000), num_hidden_layers (1 to 1,000), image_size (1 to 100,000), "
                                          "patch_size (1 to image_size) and num_channels (at most 16)"));
    return 0;
  }
  const auto patches = (image / patch) * (image / patch);
  const auto per_layer = 4 * (h * h + h) + (h * inner + inner) + (inner * h + h) + 2 * 2 * h;
  return channels * patch * patch * h + h + patches * h + layers * per_layer + 2 * h;
}

// Fields that change memory in a way not modelled yet: refused by name, never read as a plain decoder.
std::optional<Error> refuse_unmodelled(FieldReader& r) {
  if (r.uint("hidden_size_per_layer_input").value_or(0) != 0)
    return make_error(r.path("hidden_size_per_layer_input"),
                      message("import.per_layer_inputs", "per-layer input embeddings (Gemma 3n) are not modelled yet"));
  return std::nullopt;
}

// The multi-token-prediction layers whose shape is known: DeepSeek-V3's (vLLM deepseek_mtp.py; the file's layer
// model.layers.61: enorm, hnorm, eh_proj, shared_head.norm, its own embed_tokens and shared_head.head, and a decoder
// layer), GLM's (the same, vLLM glm4_moe_mtp.py) and Qwen3.5's (vLLM qwen3_5_mtp.py: pre_fc_norm_embedding,
// pre_fc_norm_hidden, fc, one full-attention decoder layer and norm; embeddings and head shared with the model).
ModelSpec::MtpLayers mtp_layers(FieldReader& r, std::string_view type) {
  if (one_of(type, {"deepseek_v3", "deepseek_v32", "glm_moe_dsa", "glm4_moe"}))
    return {r.uint("num_nextn_predict_layers").value_or(0), 3, true, {}};
  if (one_of(type, {"qwen3_5_text", "qwen3_5_moe_text", "qwen3_5", "qwen3_5_moe"}))
    return {r.uint("mtp_num_hidden_layers").value_or(0), 3, false, {}};
  // Nemotron-H (vLLM nemotron_h_mtp.py): eh_proj, enorm, hnorm, the blocks its MTP pattern names, final_layernorm.
  if (type == "nemotron_h" && (r.has("mtp_hybrid_override_pattern") || r.has("mtp_layers_block_type")))
    return {r.uint("num_nextn_predict_layers").value_or(0), 3, false, {}};
  return {};
}

// Fields whose memory is left out, said in a note.
void note_unmodelled(FieldReader& r, ModelSpec& s, std::string_view type) {
  std::uint64_t mtp = 0;
  for (auto key : {"num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_modules"})
    mtp = std::max(mtp, r.uint(key).value_or(0));
  s.mtp = mtp_layers(r, type);
  if (s.mtp.layers)
    s.notes.push_back(message("import.mtp_in_files",
                              "The checkpoint files hold {n} multi-token-prediction layer(s), counted in the files' "
                              "size but not in the weights loaded: vLLM and SGLang load them only for MTP speculative "
                              "decoding, transformers and llama.cpp not at all.",
                              {arg::digits("n", mtp)}));
  else if (mtp)
    s.notes.push_back(message("import.mtp_layers",
                              "The {n} multi-token-prediction layer(s) in the checkpoint files are not counted: vLLM "
                              "and SGLang load them only for MTP speculative decoding, transformers and llama.cpp "
                              "not at all.",
                              {arg::digits("n", mtp)}));
  if (r.boolean("attention_k_eq_v").value_or(false))
    s.notes.push_back(message("import.k_eq_v", "The full-attention layers use one projection as key and value; vLLM "
                                               "and llama.cpp still cache both, as counted here."));
  if (r.has("sparse_attention_config"))
    s.notes.push_back(message("import.sparse_index",
                              "The sparse-attention index cache (sparse_attention_config) is not counted."));
}

// Nemotron-NAS (DeciLM) block_configs: each layer's attention (KV heads = heads / n_heads_in_group, or none) and
// FFN width (ffn_mult, as DeciLM's _ffn_mult_to_intermediate_size rounds it: 2·mult·hidden/3 up to a multiple of 256).
void apply_block_configs(FieldReader& r, std::vector<LayerRun>& layers, std::uint64_t hidden) {
  const json* blocks = r.array("block_configs");
  if (!blocks) return;
  if (blocks->size() != layers.size()) {
    r.fail_message("block_configs", message("import.one_per_layer", "needs one entry per layer ({layers}), got {got}",
                           {arg::digits("layers", layers.size()), arg::digits("got", blocks->size())}));
    return;
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    FieldReader block((*blocks)[i], r.path("block_configs[" + std::to_string(i) + "]"));
    const json* attention = block.object("attention");
    const json* ffn = block.object("ffn");
    if (!attention || !ffn) {
      r.fail_message("block_configs", message("import.block_objects", "layer {layer} needs \"attention\" and \"ffn\" objects",
                                              {arg::digits("layer", i)}));
      return;
    }
    FieldReader a(*attention, block.path("attention")), f(*ffn, block.path("ffn"));
    if (a.boolean("replace_with_linear").value_or(false) || f.boolean("replace_with_linear").value_or(false)) {
      r.fail_message("block_configs", message("import.replace_with_linear",
                                              "layer {layer}: replace_with_linear is not modelled yet",
                                              {arg::digits("layer", i)}));
      return;
    }
    LayerRun& layer = layers[i];
    if (a.boolean("no_op").value_or(false)) layer.mixer = MixerKind::none;
    else if (auto group = a.uint("n_heads_in_group"); group && *group)
      layer.attention.kv_heads = layer.attention.heads / *group;
    if (f.boolean("no_op").value_or(false)) {
      layer.mlp = {.kind = MlpKind::none};
    } else if (auto mult = f.number("ffn_mult")) {
      if (!(*mult > 0 && *mult <= 1'000))
        return r.fail_message("block_configs", message("import.ffn_mult",
                                                     "layer {layer}: ffn_mult must be above 0 and at most 1000",
                                                     {arg::digits("layer", i)}));
      const auto width = static_cast<std::uint64_t>(2.0 * *mult * static_cast<double>(hidden) / 3.0);
      layer.mlp = {.kind = MlpKind::dense, .intermediate = (width + 255) / 256 * 256};
    }
    if (a.error()) return r.fail_message("block_configs", a.error()->message);
    if (f.error()) return r.fail_message("block_configs", f.error()->message);
  }
}

// Mixture of experts in its config spellings: top-k, expert and shared-expert widths, router bias, where it sits.
void read_experts(FieldReader& r, UniformDecoder& d, std::uint64_t experts, std::string_view type) {
  auto& moe = d.moe;
  moe.kind = MlpKind::moe;
  moe.routed_experts = experts;
  moe.experts_per_token = r.has("num_experts_per_tok")     ? r.uint("num_experts_per_tok").value_or(2)
                          : r.has("num_experts_per_token") ? r.uint("num_experts_per_token").value_or(2)
                                                           : r.uint("top_k_experts").value_or(2);
  moe.expert_intermediate = r.uint("moe_intermediate_size").value_or(d.dense.intermediate);
  moe.shared_experts = r.has("n_shared_experts") ? r.uint("n_shared_experts").value_or(0)
                                                 : r.uint("num_shared_experts").value_or(0);
  // The shared expert's width: Qwen2-MoE's one gated expert, or DeepSeek-style experts of the routed width.
  for (auto key : {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size", "shared_intermediate_size",
                   "share_expert_dim"})
    if (auto width = r.uint(key); width && *width) {
      moe.shared_experts = std::max<std::uint64_t>(moe.shared_experts, 1);
      moe.shared_intermediate = *width / moe.shared_experts;
    }
  moe.shared_gate = one_of(type, {"qwen2_moe", "qwen3_next", "qwen3_5_moe", "qwen3_5_moe_text"}) && moe.shared_experts;
  if (one_of(type, {"llama4", "llama4_text"})) {  // Llama4TextMoe: one shared expert of the routed width
    moe.shared_experts = 1;
    d.dense.intermediate = r.uint("intermediate_size_mlp").value_or(d.dense.intermediate);
  }
  if (one_of(type, {"gemma4", "gemma4_text"})) {  // Gemma 4's MoE block runs beside the layer's dense MLP
    moe.shared_experts = 1;
    moe.shared_intermediate = d.dense.intermediate;
  }
  if (auto dense = r.uint("dense_intermediate_size")) d.dense.intermediate = *dense;  // MiniMax-M3's dense layers
  // Latent MoE: Nemotron 3's moe_latent_size, Kimi K3's routed_expert_hidden_size (with an RMSNorm over the sum).
  moe.latent = r.has("moe_latent_size") ? r.uint("moe_latent_size").value_or(0)
                                        : r.uint("routed_expert_hidden_size").value_or(0);
  moe.latent_norm = moe.latent && r.boolean("latent_moe_use_norm").value_or(false);
  d.leading_dense = r.uint("first_k_dense_replace").value_or(0);
  moe.router_bias = r.string("topk_method").value_or("") == "noaux_tc" || r.boolean("use_routing_bias").value_or(false) ||
                    r.boolean("use_moe_router_bias").value_or(false) || type == "nemotron_h" || type == "gpt_oss" ||
                    type == "kimi_linear";  // vLLM's KimiMoE always holds gate.e_score_correction_bias
}

// The Qwen3-VL / Qwen3.5 vision tower as transformers' Qwen3VLVisionModel holds it: a Conv3d patch embedding with
// bias, a learned position table, `depth` pre-norm blocks (two LayerNorms, fused qkv and proj with biases, a
// 2-matrix MLP with biases), a patch merger (LayerNorm, two linears with biases on spatial_merge_size² patches) and
// one more merger per deepstack_visual_indexes entry whose LayerNorm spans the merged width.
std::uint64_t qwen_vision_params(FieldReader& v) {
  const auto h = v.uint("hidden_size").value_or(0);
  const auto inner = v.uint("intermediate_size").value_or(0);
  const auto depth = v.uint("depth").value_or(0);
  const auto patch = v.uint("patch_size").value_or(0);
  const auto temporal = v.uint("temporal_patch_size").value_or(2);
  const auto channels = v.uint("in_channels").value_or(3);
  const auto positions = v.uint("num_position_embeddings").value_or(0);
  const auto out = v.uint("out_hidden_size").value_or(0);
  const auto merge = v.uint("spatial_merge_size").value_or(2);
  const json* deepstack = v.array("deepstack_visual_indexes");
  const std::uint64_t extra_mergers = deepstack ? deepstack->size() : 0;
  // Bounds far above real towers that keep the products below 2^64.
  if (!h || !inner || !depth || !patch || !out || h > 65'536 || inner > 1'000'000 || depth > 1'000 || patch > 1'000 ||
      temporal > 16 || channels > 16 || merge > 16 || positions > 10'000'000 || out > 1'000'000 || extra_mergers > 64) {
    v.fail_message("hidden_size", message("import.qwen_vision_sizes",
                                          "the vision tower needs hidden_size, intermediate_size, depth, patch_size "
                                          "and out_hidden_size, each within the sizes real models use"));
    return 0;
  }
  const auto merged = h * merge * merge;
  const auto block = 4 * h + (3 * h * h + 3 * h) + (h * h + h) + (h * inner + inner) + (inner * h + h);
  const auto merger = [&](std::uint64_t norm_width) { return 2 * norm_width + merged * merged + merged + merged * out + out; };
  return channels * temporal * patch * patch * h + h + positions * h + depth * block + merger(h) +
         extra_mergers * merger(merged);
}

// Gemma 4's vision tower as transformers' Gemma4VisionModel holds it: a patch projection without bias, a position
// table of 2 × position_embedding_size rows, pre- and post-norm encoder layers (q, k, v, o without bias, q_norm and
// k_norm over head_dim, a weightless v_norm, a gated MLP, four RMSNorms), the standardization's bias and scale; then
// Gemma4MultimodalEmbedder's projection to the text width (its RMSNorm has no weight).
std::uint64_t gemma4_vision_params(FieldReader& v, std::uint64_t text_hidden) {
  const auto h = v.uint("hidden_size").value_or(0);
  const auto inner = v.uint("intermediate_size").value_or(0);
  const auto layers = v.uint("num_hidden_layers").value_or(0);
  const auto heads = v.uint("num_attention_heads").value_or(0);
  const auto kv_heads = v.uint("num_key_value_heads").value_or(heads);
  const auto head_dim = v.uint("head_dim").value_or(heads ? h / heads : 0);
  const auto patch = v.uint("patch_size").value_or(0);
  const auto positions = v.uint("position_embedding_size").value_or(0);
  if (!h || !inner || !layers || !heads || !head_dim || !patch || h > 65'536 || inner > 1'000'000 || layers > 1'000 ||
      heads > 1'024 || kv_heads > heads || head_dim > 4'096 || patch > 1'000 || positions > 10'000'000) {
    v.fail_message("hidden_size", message("import.gemma4_vision_sizes",
                                          "the vision tower needs hidden_size, intermediate_size, num_hidden_layers, "
                                          "num_attention_heads, head_dim and patch_size within the sizes real models "
                                          "use"));
    return 0;
  }
  if (v.boolean("use_clipped_linears").value_or(false))
    v.fail_message("use_clipped_linears", message("import.clipped_linears",
                                                  "clipped linears in the vision tower are not modelled; only false is "
                                                  "supported"));
  const auto attention = h * heads * head_dim + 2 * h * kv_heads * head_dim + heads * head_dim * h + 2 * head_dim;
  const auto layer = attention + 3 * h * inner + 4 * h;
  const auto standardize = v.boolean("standardize").value_or(false) ? 2 * h : 0;
  return 3 * patch * patch * h + 2 * positions * h + layers * layer + standardize + h * text_hidden;
}

// MoonViT, the vision tower of Kimi K2.5 and K3 (vt_* keys), as vLLM's kimi_k25_vit.py holds it: a Conv2d patch
// embedding, a learned init_pos_emb_height × width position table (the temporal part is a fixed sin-cos buffer),
// pre-norm layers (norm0, norm1, packed wqkv of 3 · qkv_hidden_size, wo, a 2-matrix MLP), a final norm; then
// KimiK25MultiModalProjector: LayerNorm, a square linear over the merge_kernel_size patches, a linear to the text
// width, both with bias. K3's flags (norm_type rmsnorm, attn_bias, linear_bias, patch_embed_proj_bias false) drop the
// norms' biases and the linears' biases; its patchmergerv2 projector is named in a note, not counted.
std::uint64_t moonvit_params(FieldReader& v, std::uint64_t text_hidden, std::vector<Message>& notes) {
  const auto h = v.uint("vt_hidden_size").value_or(0);
  const auto inner = v.uint("vt_intermediate_size").value_or(0);
  const auto layers = v.uint("vt_num_hidden_layers").value_or(0);
  const auto qkv = v.uint("qkv_hidden_size").value_or(h);
  const auto patch = v.uint("patch_size").value_or(0);
  const auto table_height = v.uint("init_pos_emb_height").value_or(0), table_width = v.uint("init_pos_emb_width").value_or(0);
  std::uint64_t merged = h;
  if (const json* kernel = v.array("merge_kernel_size"))
    for (const auto& k : *kernel) merged *= k.is_number_unsigned() && k.get<std::uint64_t>() <= 16 ? k.get<std::uint64_t>() : 0;
  if (!h || !inner || !layers || !qkv || !patch || !merged || h > 65'536 || inner > 1'000'000 || layers > 1'000 ||
      qkv > 65'536 || patch > 1'000 || table_height > 4'096 || table_width > 4'096 || text_hidden > 1'000'000) {
    v.fail_message("vt_hidden_size", message("import.moonvit_sizes",
                                             "the MoonViT tower needs vt_hidden_size, vt_intermediate_size, "
                                             "vt_num_hidden_layers, patch_size and merge_kernel_size within the sizes "
                                             "real models use"));
    return 0;
  }
  const bool rms = v.string("norm_type").value_or("layernorm") == "rmsnorm";
  const bool attn_bias = v.boolean("attn_bias").value_or(true), linear_bias = v.boolean("linear_bias").value_or(true);
  const auto norm = rms ? h : 2 * h;
  const auto attention = h * 3 * qkv + qkv * h + (attn_bias ? 3 * qkv + h : 0);
  const auto mlp = 2 * h * inner + (linear_bias ? inner + h : 0);
  const auto patch_embed = 3 * patch * patch * h + (v.boolean("patch_embed_proj_bias").value_or(true) ? h : 0);
  const auto tower = patch_embed + table_height * table_width * h + layers * (2 * norm + attention + mlp) + norm;
  if (v.string("mm_projector_type").value_or("patchmerger") != "patchmerger") {
    notes.push_back(message("import.projector_unknown",
                            "The vision projector (mm_projector_type \"{type}\") is not counted: its layout is not "
                            "modelled yet.",
                            {arg::text("type", v.string("mm_projector_type").value_or(""))}));
    return tower;
  }
  return tower + 2 * h + merged * merged + merged + merged * text_hidden + text_hidden;
}

// The vision towers' shapes, read beside their parameter counts (the counts above check the same fields' bounds).
ModelSpec::VisionTower qwen_vision_shape(FieldReader& v) {
  ModelSpec::VisionTower t;
  t.schema = "qwen";
  t.hidden_size = v.uint("hidden_size").value_or(0);
  t.layers = v.uint("depth").value_or(0);
  t.heads = v.uint("num_heads").value_or(0);
  t.intermediate_size = v.uint("intermediate_size").value_or(0);
  t.patch_size = v.uint("patch_size").value_or(0);
  t.merge = v.uint("spatial_merge_size").value_or(2);           // Qwen3VLVisionConfig's default
  t.temporal_patch = v.uint("temporal_patch_size").value_or(2);  // the same
  const json* deepstack = v.array("deepstack_visual_indexes");
  t.deepstack = deepstack ? deepstack->size() : 0;
  return t;
}

// Gemma 4 takes images at their own aspect ratio, pooled pooling_kernel_size² patches to a token, at most
// default_output_length tokens an image (the processor's max_soft_tokens; the wrapper's vision_soft_tokens_per_image
// says the same).
ModelSpec::VisionTower gemma4_vision_shape(FieldReader& v, FieldReader& top) {
  ModelSpec::VisionTower t;
  t.schema = "gemma4";
  t.hidden_size = v.uint("hidden_size").value_or(0);
  t.layers = v.uint("num_hidden_layers").value_or(0);
  t.heads = v.uint("num_attention_heads").value_or(0);
  t.intermediate_size = v.uint("intermediate_size").value_or(0);
  t.patch_size = v.uint("patch_size").value_or(0);
  t.merge = std::min<std::uint64_t>(v.uint("pooling_kernel_size").value_or(1), 64);
  t.tokens_per_image = v.uint("default_output_length")
                           .value_or(top.uint("vision_soft_tokens_per_image").value_or(v.uint("image_seq_length").value_or(0)));
  return t;
}

// MoonViT takes images at their own size; merge_kernel_size [h, w] patches make one token.
ModelSpec::VisionTower moonvit_shape(FieldReader& v, std::vector<Message>& notes) {
  ModelSpec::VisionTower t;
  t.schema = "moonvit";
  t.hidden_size = v.uint("vt_hidden_size").value_or(0);
  t.layers = v.uint("vt_num_hidden_layers").value_or(0);
  t.heads = v.uint("vt_num_attention_heads").value_or(0);
  t.intermediate_size = v.uint("vt_intermediate_size").value_or(0);
  t.patch_size = v.uint("patch_size").value_or(0);
  if (const json* kernel = v.array("merge_kernel_size"); kernel && kernel->size() == 2 && (*kernel)[0] == (*kernel)[1] &&
                                                          (*kernel)[0].is_number_unsigned())
    t.merge = std::min<std::uint64_t>((*kernel)[0].get<std::uint64_t>(), 16);
  else
    notes.push_back(message("import.vision_merge_unread",
                            "The vision tower's merge_kernel_size is not a square [n, n]: the tokens per image count "
                            "one token per patch."));
  return t;
}

// SigLIP and CLIP resize every image to image_size²; Gemma 3 pools the patches to mm_tokens_per_image tokens, a
// LLaVA-style model hands every patch on (image_seq_length where the config says it).
ModelSpec::VisionTower vit_shape(FieldReader& v, FieldReader& top, std::string_view wrapper, std::vector<Message>& notes) {
  ModelSpec::VisionTower t;
  t.schema = "siglip";
  t.hidden_size = v.uint("hidden_size").value_or(0);
  t.layers = v.uint("num_hidden_layers").value_or(0);
  t.heads = v.uint("num_attention_heads").value_or(0);
  t.intermediate_size = v.uint("intermediate_size").value_or(0);
  t.patch_size = v.uint("patch_size").value_or(0);
  t.image_size = v.uint("image_size").value_or(0);
  const std::uint64_t side = t.patch_size ? t.image_size / t.patch_size : 0;
  if (wrapper == "gemma3") {
    t.tokens_per_image = top.uint("mm_tokens_per_image").value_or(256);  // Gemma3Config's default
    for (std::uint64_t m = 1; m <= side; ++m)
      if (side % m == 0 && (side / m) * (side / m) == t.tokens_per_image) t.merge = m;
  }
  if (top.has("image_grid_pinpoints") || top.has("process_image_mode"))
    notes.push_back(message("import.vision_tiles",
                            "This model cuts a large image into tiles of the tower's image size "
                            "(image_grid_pinpoints): the image side counts one tile."));
  return t;
}

// DeepSeek-V4's attention (its inference/model.py ModelArgs spell the same fields): one key-value head of
// head_dim, low-rank query and grouped low-rank output, hyper-connections. The per-layer compress ratios and hash
// layers are applied to the layer list by apply_deepseek_v4_layers.
void read_one_entry_attention(FieldReader& r, ModelSpec& s, AttentionMixer& a) {
  if (a.kv_heads != 1)
    r.fail_message("num_key_value_heads", message("import.one_kv_head", "DeepSeek-V4's attention has one key-value head, got {n}",
                                                  {arg::digits("n", a.kv_heads)}));
  a.one_kv_entry = true;
  a.rope_dim = r.uint("qk_rope_head_dim").value_or(0);
  a.q_lora_rank = r.uint("q_lora_rank").value_or(0);
  a.o_lora_rank = r.uint("o_lora_rank").value_or(0);
  a.o_groups = a.o_lora_rank ? r.uint("o_groups").value_or(1) : 0;
  s.hyper_connections = r.uint("hc_mult").value_or(0);
  // Its Transformer keeps embed and head apart; SGLang's copy (model_type "deepseek_ref") omits the field.
  s.tied_embeddings = r.boolean("tie_word_embeddings").value_or(false);
  if (s.hyper_connections > 1)
    s.notes.push_back(message("import.hyper_connections",
                              "Hyper-connections keep {n} copies of the residual stream (hc_mult); the activation "
                              "estimate counts one.",
                              {arg::digits("n", s.hyper_connections)}));
}

// DeepSeek-V4's per-layer parts: compress_ratios (one entry per layer, then the MTP layers') sets each layer's
// ratio, ratio-4 layers carry the indexer (Attention: `if self.compress_ratio == 4: self.indexer = Indexer(...)`),
// and the first num_hash_layers route by token id.
void apply_deepseek_v4_layers(FieldReader& r, std::vector<LayerRun>& layers) {
  const json* ratios = r.array("compress_ratios");
  if (!ratios) return;
  if (ratios->size() < layers.size())
    return r.fail_message("compress_ratios", message("import.one_per_layer", "needs one entry per layer ({layers}), got {got}",
                           {arg::digits("layers", layers.size()), arg::digits("got", ratios->size())}));
  const auto index_heads = r.uint("index_n_heads").value_or(0);
  const auto index_head_dim = r.uint("index_head_dim").value_or(0);
  const auto hash_layers = r.uint("num_hash_layers").value_or(0);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const json& ratio = (*ratios)[i];
    if (!ratio.is_number_unsigned())
      return r.fail_message("compress_ratios", message("import.ratio_entry", "entry {entry} must be a non-negative integer",
                                                       {arg::digits("entry", i)}));
    auto& a = layers[i].attention;
    a.compress_ratio = ratio.get<std::uint64_t>();
    if (a.compress_ratio == 4) {
      a.index_heads = index_heads;
      a.index_head_dim = index_head_dim;
    }
    if (i < hash_layers && layers[i].mlp.kind == MlpKind::moe) layers[i].mlp.hash_routed = true;
  }
}

// Multi-head latent attention, where the config gives a kv_lora_rank.
void read_latent_attention(FieldReader& r, UniformDecoder& d) {
  auto rank = r.uint("kv_lora_rank");
  if (!rank || !*rank) return;
  auto& mla = d.latent;
  d.mixer = MixerKind::latent_attention;
  mla.heads = d.attention.heads;
  mla.kv_lora_rank = *rank;
  mla.q_lora_rank = r.uint("q_lora_rank").value_or(0);
  mla.qk_nope_head_dim = r.uint("qk_nope_head_dim").value_or(0);
  mla.qk_rope_head_dim = r.uint("qk_rope_head_dim").value_or(0);
  mla.v_head_dim = r.uint("v_head_dim").value_or(0);
  mla.output_gate = r.boolean("mla_use_output_gate").value_or(false);
  mla.index_head_dim = r.uint("index_head_dim").value_or(0);  // DeepSeek Sparse Attention's indexer
  mla.index_heads = mla.index_head_dim ? r.uint("index_n_heads").value_or(0) : 0;
  d.attention.v_head_dim = 0;
}

// Sliding window in its spellings: layer_types (newest), Gemma 2 alternation, Gemma 3 pattern,
// Qwen2 use_sliding_window + max_window_layers, or a plain sliding_window for every layer.
void read_sliding_window(FieldReader& r, const ModelSpec& s, UniformDecoder& d, std::string_view type) {
  const auto window = r.uint("sliding_window").value_or(0);
  const bool qwen_style = r.has("use_sliding_window");
  const bool use_window = r.boolean("use_sliding_window").value_or(true);
  if (window && use_window && window < (s.max_context ? s.max_context : ~0ULL)) {
    d.attention.window = window;
    auto& flags = d.windowed;
    if (const json* types = r.array("layer_types")) {
      for (const auto& t : *types) {
        if (!t.is_string()) {
          r.fail_message("layer_types", message("import.layer_type_strings",
                                                "expected strings such as \"sliding_attention\" or \"full_attention\""));
          break;
        }
        flags.push_back(t.get_ref<const std::string&>() == "sliding_attention");
      }
      if (!r.error() && flags.size() != d.layers)
        r.fail_message("layer_types", message("import.one_per_layer", "needs one entry per layer ({layers}), got {got}",
                           {arg::digits("layers", d.layers), arg::digits("got", flags.size())}));
    } else if (type == "gemma2") {
      for (std::uint64_t i = 0; i < d.layers && i < 10'000; ++i) flags.push_back(i % 2 == 0);
    } else if (auto pattern = r.uint("sliding_window_pattern"); pattern && *pattern > 0) {
      for (std::uint64_t i = 0; i < d.layers && i < 10'000; ++i) flags.push_back((i + 1) % *pattern != 0);
    } else if (qwen_style && r.has("max_window_layers")) {
      const auto first = r.uint("max_window_layers").value_or(0);
      for (std::uint64_t i = 0; i < d.layers && i < 10'000; ++i) flags.push_back(i >= first);
    }
  }
}

// Llama-shaped decoders: llama, mistral, mixtral, qwen2/3(+moe), gemma 1-3, phi3, deepseek v2/v3, ...
void import_llama_like(FieldReader& r, ModelSpec& s, UniformDecoder& d, std::string_view type,
                       std::optional<bool> top_tied) {
  s.hidden_size = r.uint("hidden_size").value_or(0);
  d.layers = r.has("num_hidden_layers") ? r.uint("num_hidden_layers").value_or(0) : pattern_layers(r);
  auto& attention = d.attention;
  attention.heads = r.uint("num_attention_heads").value_or(0);
  attention.kv_heads = r.uint("num_key_value_heads").value_or(attention.heads);
  // Gemma3TextConfig defaults: the official multimodal configs omit these.
  const bool gemma3 = one_of(type, {"gemma3_text", "gemma3"});
  s.vocab_size = r.uint("vocab_size").value_or(gemma3 ? 262'208 : 0);
  d.dense.intermediate = r.uint("intermediate_size").value_or(0);
  s.max_context = r.uint("max_position_embeddings").value_or(gemma3 ? 131'072 : 0);
  const auto implied = attention.heads ? s.hidden_size / attention.heads : 0;
  attention.head_dim = r.uint("head_dim").value_or(implied);  // explicit head_dim wins (Gemma, Qwen3)
  if (attention.head_dim == 0) attention.head_dim = implied;
  s.tied_embeddings = r.boolean("tie_word_embeddings").value_or(top_tied.value_or(default_tied(type)));
  const bool attention_bias = r.boolean("attention_bias").value_or(false);
  s.qkv_bias = attention_bias || one_of(type, {"qwen2", "qwen2_moe"});  // Qwen2 always has q/k/v biases
  s.attn_out_bias = attention_bias;
  s.mlp_bias = r.boolean("mlp_bias").value_or(false);
  s.qk_norm = one_of(type, {"qwen3", "qwen3_moe", "gemma3_text", "gemma3", "qwen3_next", "qwen3_5_text",
                            "qwen3_5_moe_text", "qwen3_vl_text", "qwen3_vl_moe_text", "gemma4_text"}) ||
              (r.boolean("use_qk_norm").value_or(false) && !one_of(type, {"llama4", "llama4_text"}));
  s.norms_per_layer = one_of(type, {"gemma2", "gemma3_text", "gemma3", "gemma4_text"}) ? 4 : 2;  // pre+post norms
  attention.output_gate = type == "qwen3_next" || r.boolean("attn_output_gate").value_or(false);
  attention.v_head_dim = r.uint("v_head_dim").value_or(0);
  if (type == "gpt_oss") {  // GptOssExperts and GptOssTopKRouter carry biases; each head has a sink logit
    s.mlp_bias = true;
    attention.sinks = true;
  }
  if (type == "nemotron_h") {  // one norm per block; relu² MLPs have no gate
    s.norms_per_layer = 1;
    s.gated_mlp = false;
    attention.head_dim = r.uint("attention_head_dim").value_or(attention.head_dim);
  }
  const std::string ssm_dtype = r.string("mamba_ssm_dtype").value_or(r.string("mamba_ssm_cache_dtype").value_or(""));
  if (ssm_dtype == "float32") s.recurrent_state_element_bytes = 4;
  // vLLM's MambaStateDtypeCalculator.kda_state_dtype keeps Kimi Delta Attention's recurrent state in float32 always.
  if (r.has("linear_attn_config")) s.recurrent_state_element_bytes = 4;
  s.attention_residuals = r.uint("attn_res_block_size").value_or(0) != 0;

  // Mixture of experts, in its config spellings.
  const auto experts = r.has("num_local_experts") ? r.uint("num_local_experts")
                       : r.has("n_routed_experts") ? r.uint("n_routed_experts")
                                                   : r.uint("num_experts");
  if (experts.value_or(0) > 1 && r.boolean("enable_moe_block").value_or(true)) read_experts(r, d, *experts, type);

  read_latent_attention(r, d);

  if (r.has("compress_ratios") || r.has("o_lora_rank")) read_one_entry_attention(r, s, attention);

  read_sliding_window(r, s, d, type);
}

}  // namespace

std::string python_json_as_json(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    const std::string_view rest = text.substr(i);
    bool replaced = false;
    for (std::string_view word : {"-Infinity", "Infinity", "NaN"})
      if (rest.substr(0, word.size()) == word) {
        out += "null";
        i += word.size() - 1;
        replaced = true;
        break;
      }
    if (!replaced) out += c;
  }
  return out;
}

namespace {

// A multimodal config's vision tower (vision_config): its parameters and the shape its images take.
std::optional<Error> read_vision_tower(const json& root, const std::string& path, FieldReader& top, ModelSpec& s) {
  FieldReader vision_reader(root, path);
  if (const json* vision = vision_reader.object("vision_config")) {
    FieldReader v(*vision, vision_reader.path("vision_config"));
    const std::string wrapper = top.string("model_type").value_or("");
    if (v.has("depth") && v.has("out_hidden_size")) {
      s.vision_params = qwen_vision_params(v);
      s.vision = qwen_vision_shape(v);
    } else if (v.string("model_type").value_or("") == "gemma4_vision") {
      s.vision_params = gemma4_vision_params(v, s.hidden_size);
      s.vision = gemma4_vision_shape(v, top);
    } else if (v.has("vt_hidden_size")) {
      s.vision_params = moonvit_params(v, v.uint("text_hidden_size").value_or(s.hidden_size), s.notes);
      s.vision = moonvit_shape(v, s.notes);
    } else if (v.has("image_size") && v.has("patch_size") && v.has("num_hidden_layers")) {
      s.vision_params = vision_tower_params(v);
      s.vision = vit_shape(v, top, wrapper, s.notes);
      // Gemma 3 projects vision features with one matrix and an RMSNorm (mm_input_projection, mm_soft_emb_norm).
      const auto vh = v.uint("hidden_size").value_or(0);
      if (wrapper == "gemma3") s.vision_params += vh * s.hidden_size + vh;
      else s.notes.push_back(message("import.projector_uncounted", "The vision projector of this model type is not counted."));
    } else {
      s.notes.push_back(message("import.vision_unknown",
                                "The vision tower (vision_config of \"{type}\") is not counted: its layout is not "
                                "modelled yet.",
                                {arg::text("type", wrapper)}));
    }
    if (v.error()) return *v.error();
  } else {
    s.notes.push_back(message("import.text_only",
                              "Only the language model (text_config) is counted; a vision or audio tower adds more."));
  }
  return std::nullopt;
}

}  // namespace

Result<ModelSpec> model_from_config_object(const json& root, const std::string& path, bool quant_config_apart) {
  if (!root.is_object())
    return make_error(path.empty() ? "config" : path, message("json.expected_json_object", "expected a JSON object"));
  // Multimodal configs nest the language model (Gemma 3, Llava, Mistral 3 ...).
  const json* text = root.contains("text_config") && root["text_config"].is_object() ? &root["text_config"] : &root;
  const std::string text_path = text == &root ? path : (path.empty() ? "text_config" : path + ".text_config");
  FieldReader r(*text, text_path);
  FieldReader top(root, path);

  ModelSpec s;
  std::string type = r.string("model_type").value_or(top.string("model_type").value_or(""));
  for (auto unsupported : kUnsupported)
    if (type == unsupported)
      return make_error(r.path("model_type"), message("import.recurrent_type",
                                                      "\"{type}\" has state-space or recurrent layers; vramfit models "
                                                      "only attention KV caches and would give a wrong number",
                                                      {arg::text("type", type)}));
  if (!r.has("hybrid_override_pattern") && !r.has("layers_block_type") &&
      (r.has("ssm_cfg") || r.has("mamba_d_state") || r.has("ssm_state_size") || r.has("attn_layer_period")))
    return make_error(r.path("model_type"), message("import.mamba_layers",
                                                    "this config has state-space (Mamba) layers, which vramfit does not model"));
  s.architecture = type;

  UniformDecoder d;
  if (type == "gpt2") import_gpt2(r, s, d);
  else if (type == "opt") import_opt(r, s, d);
  else if (type == "bert" || type == "roberta") import_bert(r, s, d);
  else if (one_of(type, {"falcon", "RefinedWeb", "RefinedWebModel"})) import_falcon(r, s, d, type);
  else {
    if (auto refused = refuse_unmodelled(r)) return *refused;
    // A multimodal wrapper may say it for the whole model (Qwen3.5: top-level tie_word_embeddings false).
    import_llama_like(r, s, d, type, text != &root ? top.boolean("tie_word_embeddings") : std::nullopt);
    if (std::find(kKnownDecoders.begin(), kKnownDecoders.end(), type) == kKnownDecoders.end() &&
        !r.has("compress_ratios"))
      s.notes.push_back(message("import.unknown_type",
                                "model_type \"{type}\" is not known to vramfit; its layers are counted as a standard "
                                "decoder's (attention and MLP in each).",
                                {arg::text("type", type)}));
    note_unmodelled(r, s, type);
  }
  read_training_fields(r, s);
  if (top.error()) return *top.error();
  if (r.error()) return *r.error();
  if (d.attention.head_dim == 0 && d.attention.heads != 0) d.attention.head_dim = s.hidden_size / d.attention.heads;
  s.layers = uniform_layers(d);
  if (s.num_layers() <= 10'000) {
    auto layers = expand_runs(s.layers);
    apply_layer_patterns(r, layers, type, d, s.hidden_size);
    apply_block_configs(r, layers, s.hidden_size);
    apply_deepseek_v4_layers(r, layers);
    if (type == "nemotron_h" && s.mtp.layers) s.mtp.sources = hybrid_mtp_sources(r, layers);
    if (r.error()) return *r.error();
    s.layers = compress_runs(layers);
  }
  if (text != &root)
    if (auto error = read_vision_tower(root, path, top, s)) return *error;
  // default_context stays 0: the engine's default applies, never silently the model's maximum.
  if (auto q = read_quantization(top, r, s, quant_config_apart); !q) return q.error();
  if (auto ok = validate(s); !ok) {
    Error e = ok.error();
    e.field = path.empty() ? e.field : path + "." + e.field;
    return e;
  }
  return s;
}

}  // namespace detail

Result<ModelSpec> model_from_hf_config(std::string_view config_json, std::string_view quant_config_json) {
  auto parsed = detail::parse_json(detail::python_json_as_json(config_json), "config");
  if (!parsed) return parsed.error();
  auto spec = detail::model_from_config_object(parsed.value(), "config", !quant_config_json.empty());
  if (!spec || quant_config_json.empty()) return spec;
  if (auto read = apply_hf_quant_config(quant_config_json, spec.value()); !read) return read.error();
  return spec;
}

}  // namespace vramfit
