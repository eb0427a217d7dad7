#include "model/hf_config.hpp"

#include <array>        // std::array
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "model/hf_config_json.hpp"

namespace vramfit {
namespace detail {
namespace {

bool one_of(std::string_view value, std::initializer_list<std::string_view> options) {
  for (auto o : options)
    if (o == value) return true;
  return false;
}

// Architectures whose per-layer state is not a KV cache; a transformer estimate would be silently wrong.
constexpr std::array<std::string_view, 12> kUnsupported{
    "mamba", "mamba2", "jamba", "rwkv", "rwkv5", "rwkv6", "falcon_h1", "zamba", "zamba2", "recurrent_gemma",
    "bamba", "nemotron_h"};

// transformers' per-class default for tie_word_embeddings when the config omits it
// (PretrainedConfig defaults to true; Llama-family classes override it to false).
bool default_tied(std::string_view type) {
  return !one_of(type, {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi3",
                        "deepseek_v2", "deepseek_v3", "granite", "olmo2", "mistral3"});
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
    r.fail_message("word_embed_proj_dim", "OPT's embedding projection (word_embed_proj_dim != hidden_size) is not modelled");
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
  s.notes.push_back("BERT is an encoder: no KV cache is kept; the count includes the pooler as BertModel does.");
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
    v.fail_message("vision_use_head", "a vision attention-pooling head is not modelled; only false is supported");
  if (!h || !inner || !layers || !patch || !image || h > 100'000 || inner > 1'000'000 || layers > 1'000 ||
      patch > image || image > 100'000 || channels > 16) {
    v.fail_message("hidden_size", "the vision tower needs hidden_size, intermediate_size, num_hidden_layers, "
                                  "patch_size and image_size within sane ranges");
    return 0;
  }
  const auto patches = (image / patch) * (image / patch);
  const auto per_layer = 4 * (h * h + h) + (h * inner + inner) + (inner * h + h) + 2 * 2 * h;
  return channels * patch * patch * h + h + patches * h + layers * per_layer + 2 * h;
}

// Llama-shaped decoders: llama, mistral, mixtral, qwen2/3(+moe), gemma 1-3, phi3, deepseek v2/v3, ...
void import_llama_like(FieldReader& r, ModelSpec& s, UniformDecoder& d, std::string_view type) {
  s.hidden_size = r.uint("hidden_size").value_or(0);
  d.layers = r.uint("num_hidden_layers").value_or(0);
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
  s.tied_embeddings = r.boolean("tie_word_embeddings").value_or(default_tied(type));
  const bool attention_bias = r.boolean("attention_bias").value_or(false);
  s.qkv_bias = attention_bias || one_of(type, {"qwen2", "qwen2_moe"});  // Qwen2 always has q/k/v biases
  s.attn_out_bias = attention_bias;
  s.mlp_bias = r.boolean("mlp_bias").value_or(false);
  s.qk_norm = one_of(type, {"qwen3", "qwen3_moe", "gemma3_text", "gemma3"});
  s.norms_per_layer = one_of(type, {"gemma2", "gemma3_text", "gemma3"}) ? 4 : 2;  // pre+post norms

  // Mixture of experts, in its config spellings.
  const auto experts = r.has("num_local_experts") ? r.uint("num_local_experts")
                       : r.has("n_routed_experts") ? r.uint("n_routed_experts")
                                                   : r.uint("num_experts");
  if (experts.value_or(0) > 1) {
    auto& moe = d.moe;
    moe.kind = MlpKind::moe;
    moe.routed_experts = *experts;
    moe.experts_per_token = r.uint("num_experts_per_tok").value_or(2);
    moe.expert_intermediate = r.uint("moe_intermediate_size").value_or(d.dense.intermediate);
    moe.shared_experts = r.uint("n_shared_experts").value_or(0);
    if (auto shared = r.uint("shared_expert_intermediate_size"); shared && *shared) {
      moe.shared_experts = 1;
      moe.shared_intermediate = *shared;
      s.notes.push_back("The shared expert's sigmoid gate (hidden_size weights per layer) is not counted.");
    }
    d.leading_dense = r.uint("first_k_dense_replace").value_or(0);
    moe.router_bias = r.string("topk_method").value_or("") == "noaux_tc";
    if (r.uint("moe_layer_freq").value_or(1) != 1 || r.uint("decoder_sparse_step").value_or(1) != 1)
      r.fail_message("moe_layer_freq", "MoE on only every n-th layer is not modelled yet; only 1 is supported");
  }

  // Multi-head latent attention.
  if (auto rank = r.uint("kv_lora_rank"); rank && *rank) {
    auto& mla = d.latent;
    d.mixer = MixerKind::latent_attention;
    mla.heads = attention.heads;
    mla.kv_lora_rank = *rank;
    mla.q_lora_rank = r.uint("q_lora_rank").value_or(0);
    mla.qk_nope_head_dim = r.uint("qk_nope_head_dim").value_or(0);
    mla.qk_rope_head_dim = r.uint("qk_rope_head_dim").value_or(0);
    mla.v_head_dim = r.uint("v_head_dim").value_or(0);
  }

  // Sliding window in its spellings: layer_types (newest), Gemma 2 alternation, Gemma 3 pattern,
  // Qwen2 use_sliding_window + max_window_layers, or a plain sliding_window for every layer.
  const auto window = r.uint("sliding_window").value_or(0);
  const bool qwen_style = r.has("use_sliding_window");
  const bool use_window = r.boolean("use_sliding_window").value_or(true);
  if (window && use_window && window < (s.max_context ? s.max_context : ~0ULL)) {
    attention.window = window;
    auto& flags = d.windowed;
    if (const json* types = r.array("layer_types")) {
      for (const auto& t : *types) {
        if (!t.is_string()) {
          r.fail_message("layer_types", "expected strings such as \"sliding_attention\" or \"full_attention\"");
          break;
        }
        flags.push_back(t.get_ref<const std::string&>() == "sliding_attention");
      }
      if (!r.error() && flags.size() != d.layers)
        r.fail_message("layer_types", "needs one entry per layer (" + std::to_string(d.layers) + "), got " +
                                          std::to_string(flags.size()));
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

// quantization_config (top level, or in text_config) → a weight format name. Spellings: transformers'
// GPTQConfig (bits, group_size, -1 = no grouping), AwqConfig (bits, group_size; AutoAWQ's w_bit,
// q_group_size), BitsAndBytesConfig (load_in_4bit, bnb_4bit_use_double_quant, load_in_8bit), FbgemmFp8/
// FineGrainedFP8 and compressed-tensors fp8 ("quant_method": "fp8").
Result<bool> read_quantization(FieldReader& top, FieldReader& text, ModelSpec& s) {
  FieldReader& holder = top.has("quantization_config") ? top : text;
  const json* q = holder.object("quantization_config");
  if (holder.error()) return *holder.error();
  if (!q) return true;
  FieldReader f(*q, holder.path("quantization_config"));
  const std::string method = f.string("quant_method").value_or("");
  if (method == "gptq" || method == "awq") {
    const auto bits = f.has("bits") ? f.uint("bits") : f.uint("w_bit");
    const json* group = f.find(f.has("group_size") ? "group_size" : "q_group_size");
    std::int64_t g = 128;
    if (group && group->is_number_integer()) g = group->get<std::int64_t>();
    if (f.error()) return *f.error();
    if (!bits || !(*bits == 2 || *bits == 3 || *bits == 4 || *bits == 8))
      return make_error(f.path("bits"), "GPTQ/AWQ bits must be 2, 3, 4 or 8");
    if (g == 0 || g < -1) return make_error(f.path("group_size"), "must be positive or -1 (no grouping)");
    s.quantization = method + "-" + std::to_string(*bits) + "bit" + (g == -1 ? std::string("-nogroup") : "-" + std::to_string(g) + "g");
  } else if (method == "bitsandbytes" || f.has("load_in_4bit") || f.has("load_in_8bit")) {
    if (f.boolean("load_in_4bit").value_or(false))
      s.quantization = f.boolean("bnb_4bit_use_double_quant").value_or(false) ? "nf4" : "nf4-no-dq";
    else if (f.boolean("load_in_8bit").value_or(false))
      s.quantization = "bnb-int8";
  } else if (method == "fp8" || method == "fbgemm_fp8") {
    s.quantization = "fp8";
  } else if (method == "compressed-tensors") {
    const std::string format = f.string("format").value_or("");
    if (format.find("float") != std::string::npos || format.find("fp8") != std::string::npos) s.quantization = "fp8";
    else s.notes.push_back("compressed-tensors format \"" + format + "\" is not modelled; choose the weight format instead.");
  } else if (!method.empty()) {
    s.notes.push_back("quantization_config quant_method \"" + method + "\" is not modelled; choose the weight format instead.");
  }
  if (f.error()) return *f.error();
  return true;
}

}  // namespace

Result<ModelSpec> model_from_config_object(const json& root, const std::string& path) {
  if (!root.is_object()) return make_error(path.empty() ? "config" : path, "expected a JSON object");
  // Multimodal configs nest the language model (Gemma 3, Llava, Mistral 3 ...).
  const json* text = root.contains("text_config") && root["text_config"].is_object() ? &root["text_config"] : &root;
  const std::string text_path = text == &root ? path : (path.empty() ? "text_config" : path + ".text_config");
  FieldReader r(*text, text_path);
  FieldReader top(root, path);

  ModelSpec s;
  std::string type = r.string("model_type").value_or(top.string("model_type").value_or(""));
  for (auto unsupported : kUnsupported)
    if (type == unsupported)
      return make_error(r.path("model_type"), "\"" + type +
                                                  "\" has state-space or recurrent layers; vramfit models only "
                                                  "attention KV caches and would give a wrong number");
  if (r.has("ssm_cfg") || r.has("mamba_d_state") || r.has("ssm_state_size") || r.has("attn_layer_period"))
    return make_error(r.path("model_type"), "this config has state-space (Mamba) layers, which vramfit does not model");
  s.architecture = type;

  UniformDecoder d;
  if (type == "gpt2") import_gpt2(r, s, d);
  else if (type == "opt") import_opt(r, s, d);
  else if (type == "bert" || type == "roberta") import_bert(r, s, d);
  else if (one_of(type, {"falcon", "RefinedWeb", "RefinedWebModel"})) import_falcon(r, s, d, type);
  else {
    import_llama_like(r, s, d, type);
    if (!one_of(type, {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2",
                       "gemma3", "gemma3_text", "phi3", "deepseek_v2", "deepseek_v3", "granite", "olmo2", "mistral3"}))
      s.notes.push_back("model_type \"" + type + "\" is not known to vramfit; read as a Llama-style decoder.");
  }
  if (top.error()) return *top.error();
  if (r.error()) return *r.error();
  if (d.attention.head_dim == 0 && d.attention.heads != 0) d.attention.head_dim = s.hidden_size / d.attention.heads;
  s.layers = uniform_layers(d);
  if (text != &root) {
    FieldReader vision_reader(root, path);
    if (const json* vision = vision_reader.object("vision_config")) {
      FieldReader v(*vision, vision_reader.path("vision_config"));
      s.vision_params = vision_tower_params(v);
      // Gemma 3 projects vision features with one matrix and an RMSNorm (mm_input_projection, mm_soft_emb_norm).
      const auto vh = v.uint("hidden_size").value_or(0);
      if (top.string("model_type").value_or("") == "gemma3") s.vision_params += vh * s.hidden_size + vh;
      else s.notes.push_back("The vision projector of this model type is not counted.");
      if (v.error()) return *v.error();
    } else {
      s.notes.push_back("Only the language model (text_config) is counted; a vision or audio tower adds more.");
    }
  }
  // default_context stays 0: the engine's default applies, never silently the model's maximum.
  if (auto q = read_quantization(top, r, s); !q) return q.error();
  if (auto ok = validate(s); !ok) {
    Error e = ok.error();
    e.field = path.empty() ? e.field : path + "." + e.field;
    return e;
  }
  return s;
}

}  // namespace detail

Result<ModelSpec> model_from_hf_config(std::string_view config_json) {
  auto parsed = detail::parse_json(config_json, "config");
  if (!parsed) return parsed.error();
  return detail::model_from_config_object(parsed.value(), "config");
}

}  // namespace vramfit
