#include "model/hf_layer_patterns.hpp"

#include <optional>  // std::optional
#include <string>    // std::string, std::to_string

namespace vramfit::detail {
namespace {

// A per-layer list of whole numbers or booleans (booleans read as 0 / 1), one entry per layer.
// Nothing, and no error, when the key holds something else (moe_layer_freq may be a number).
std::optional<std::vector<std::uint64_t>> per_layer_numbers(FieldReader& r, std::string_view key, std::size_t layers) {
  const json* list = r.find(key);
  if (!list || !list->is_array()) return std::nullopt;
  std::vector<std::uint64_t> out;
  for (const auto& v : *list) {
    if (v.is_boolean()) out.push_back(v.get<bool>() ? 1 : 0);
    else if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)) out.push_back(v.get<std::uint64_t>());
    else {
      r.fail_message(key, message("import.layer_flags", "expected a list of whole numbers or booleans, one per layer"));
      return std::nullopt;
    }
  }
  if (out.size() != layers) {
    r.fail_message(key, message("import.one_per_layer", "needs one entry per layer ({layers}), got {got}",
                                {arg::digits("layers", layers), arg::digits("got", out.size())}));
    return std::nullopt;
  }
  return out;
}

// layer_types: the newest spelling, one name per layer.
void apply_layer_types(FieldReader& r, std::vector<LayerRun>& layers, std::uint64_t chunk) {
  const json* types = r.array("layer_types");
  if (!types) return;
  if (types->size() != layers.size()) {
    r.fail_message("layer_types", message("import.one_per_layer", "needs one entry per layer ({layers}), got {got}",
                                {arg::digits("layers", layers.size()), arg::digits("got", types->size())}));
    return;
  }
  const LinearMixer linear = read_linear_mixer(r);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& t = (*types)[i];
    const std::string name = t.is_string() ? t.get<std::string>() : "";
    // The window was read with the layer; a DeepSeek sparse-attention layer is the latent layer with its indexer.
    if (name == "full_attention" || name == "sliding_attention" || name == "deepseek_sparse_attention") continue;
    if (name == "linear_attention") {
      layers[i].mixer = MixerKind::linear_attention;
      layers[i].linear = linear;
    } else if (name == "chunked_attention" && chunk) {
      layers[i].attention.chunk = chunk;
    } else {
      r.fail_message("layer_types", message("import.layer_type_unknown",
                                            "layer {layer}: \"{type}\" is not modelled; allowed: full_attention, "
                                            "sliding_attention, chunked_attention (with attention_chunk_size), "
                                            "linear_attention, deepseek_sparse_attention",
                                            {arg::digits("layer", i), arg::text("type", name)}));
      return;
    }
  }
}

// Nemotron 3's layers_block_type as hybrid_override_pattern's characters: a list of names, or that list written out
// as Python text ("['mamba', 'moe', ...]").
std::optional<std::string> block_type_pattern(FieldReader& r, std::string_view key = "layers_block_type") {
  const json* types = r.find(key);
  if (!types) return std::nullopt;
  std::vector<std::string> names;
  if (types->is_array()) {
    for (const auto& t : *types) names.push_back(t.is_string() ? t.get<std::string>() : "");
  } else if (types->is_string()) {
    const std::string& text = types->get_ref<const std::string&>();
    for (std::size_t i = text.find('\''); i != std::string::npos; i = text.find('\'', i + 1)) {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) break;
      names.push_back(text.substr(i + 1, end - i - 1));
      i = end;
    }
  }
  std::string pattern;
  for (const auto& name : names) {
    if (name == "mamba") pattern += 'M';
    else if (name == "attention") pattern += '*';
    else if (name == "mlp") pattern += '-';
    else if (name == "moe") pattern += 'E';
    else {
      r.fail_message(key, message("import.block_type_unknown", "\"{type}\" is not modelled; allowed: mamba, attention, mlp, moe",
                                  {arg::text("type", name)}));
      return std::nullopt;
    }
  }
  return pattern;
}

}  // namespace

std::vector<std::uint64_t> hybrid_mtp_sources(FieldReader& r, const std::vector<LayerRun>& layers) {
  const auto pattern = r.has("mtp_hybrid_override_pattern") ? r.string("mtp_hybrid_override_pattern")
                                                            : block_type_pattern(r, "mtp_layers_block_type");
  std::vector<std::uint64_t> out;
  if (!pattern) return out;
  const auto is = [](const LayerRun& l, char block) {
    switch (block) {
      case 'M': return l.mixer == MixerKind::mamba2;
      case '*': return l.mixer == MixerKind::attention && l.mlp.kind == MlpKind::none;
      case '-': return l.mixer == MixerKind::none && l.mlp.kind == MlpKind::dense;
      case 'E': return l.mixer == MixerKind::none && l.mlp.kind == MlpKind::moe;
      default: return false;
    }
  };
  for (const char block : *pattern) {
    std::size_t i = layers.size();
    while (i > 0 && !is(layers[i - 1], block)) --i;
    if (i == 0) {
      r.fail_message("mtp_hybrid_override_pattern",
                     message("import.mtp_block_follow", "block '{block}' has no decoder block of its kind to follow",
                             {arg::text("block", std::string(1, block))}));
      return {};
    }
    out.push_back(i - 1);
  }
  return out;
}

std::uint64_t pattern_layers(FieldReader& r) {
  if (auto pattern = r.has("hybrid_override_pattern") ? r.string("hybrid_override_pattern") : block_type_pattern(r))
    return pattern->size();
  return 0;
}

namespace {

// Nemotron-H: one character per block: M Mamba2, * attention, - MLP, E experts.
void apply_hybrid_override(FieldReader& r, std::vector<LayerRun>& layers, const UniformDecoder& d,
                           const MambaMixer& mamba) {
  const auto pattern = r.has("hybrid_override_pattern") ? r.string("hybrid_override_pattern") : block_type_pattern(r);
  if (!pattern) return;
  if (pattern->size() != layers.size()) {
    r.fail_message("hybrid_override_pattern",
                   message("import.one_char_per_layer", "needs one character per layer ({layers}), got {got}",
                           {arg::digits("layers", layers.size()), arg::digits("got", pattern->size())}));
    return;
  }
  const MlpBlock& moe = d.moe;
  const MlpBlock& dense = d.dense;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    LayerRun& layer = layers[i];
    switch ((*pattern)[i]) {
      case 'M': layer.mixer = MixerKind::mamba2, layer.mamba = mamba, layer.mlp = {.kind = MlpKind::none}; break;
      case '*': layer.mlp = {.kind = MlpKind::none}; break;
      case '-': layer.mixer = MixerKind::none, layer.mlp = dense; break;
      case 'E':
        if (moe.kind != MlpKind::moe) {
          r.fail_message("hybrid_override_pattern", message("import.pattern_no_experts",
                                                            "has an E (experts) block but the config names no experts"));
          return;
        }
        layer.mixer = MixerKind::none, layer.mlp = moe;
        break;
      default:
        r.fail_message("hybrid_override_pattern",
                       message("import.pattern_block_unknown",
                               "block '{block}' is not modelled; allowed: M (Mamba2), * (attention), - (MLP), E (experts)",
                               {arg::text("block", std::string(1, (*pattern)[i]))}));
        return;
    }
  }
}

// Which layers keep a dense MLP and which route to experts.
void apply_moe_placement(FieldReader& r, std::vector<LayerRun>& layers, const UniformDecoder& d) {
  const MlpBlock& moe = d.moe;
  const MlpBlock& dense = d.dense;
  const std::uint64_t first_k_dense = d.leading_dense;
  if (moe.kind != MlpKind::moe) return;
  const std::size_t n = layers.size();
  std::vector<bool> is_moe(n, true);
  if (auto freq = per_layer_numbers(r, "moe_layer_freq", n)) {
    for (std::size_t i = 0; i < n; ++i) is_moe[i] = (*freq)[i] != 0;
  } else if (auto every = r.uint("moe_layer_freq"); every && *every > 1) {
    for (std::size_t i = 0; i < n; ++i) is_moe[i] = i >= first_k_dense && i % *every == 0;  // DeepseekV3DecoderLayer
  } else if (auto step = r.uint("interleave_moe_layer_step"); step && *step > 1) {
    for (std::size_t i = 0; i < n; ++i) is_moe[i] = (i + 1) % *step == 0;  // Llama4's moe_layers
  } else if (auto sparse = r.uint("decoder_sparse_step"); sparse && *sparse > 1) {
    for (std::size_t i = 0; i < n; ++i) is_moe[i] = (i + 1) % *sparse == 0;  // Qwen2MoeDecoderLayer
  } else {
    for (std::size_t i = 0; i < n; ++i) is_moe[i] = i >= first_k_dense;
  }
  if (const json* only = r.array("mlp_only_layers")) {
    for (const auto& v : *only) {
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= n) {
        r.fail_message("mlp_only_layers", message("import.layer_numbers_below", "expected layer numbers below {n}",
                                                  {arg::digits("n", n)}));
        return;
      }
      is_moe[v.get<std::size_t>()] = false;
    }
  }
  if (!is_moe.empty() && dense.intermediate == 0)
    for (std::size_t i = 0; i < n; ++i)
      if (!is_moe[i]) {
        r.fail_message("intermediate_size", message("import.dense_width_zero", "layer {layer} has a dense MLP but its width is 0",
                                                    {arg::digits("layer", i)}));
        return;
      }
  for (std::size_t i = 0; i < n; ++i)
    if (layers[i].mlp.kind != MlpKind::none) layers[i].mlp = is_moe[i] ? moe : dense;
}

// Llama 4: chunked local attention in the RoPE layers, full attention in the NoPE ones (every fourth by default,
// transformers' Llama4TextConfig no_rope_layer_interval).
void apply_chunks(FieldReader& r, std::vector<LayerRun>& layers, std::uint64_t chunk, std::string_view type) {
  if (!chunk || r.has("layer_types") || r.has("hybrid_layer_pattern")) return;
  if (type != "llama4_text" && type != "llama4") {
    for (auto& l : layers) l.attention.chunk = chunk;
    return;
  }
  const auto rope = per_layer_numbers(r, "no_rope_layers", layers.size());
  if (r.error()) return;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool uses_rope = rope && !rope->empty() ? (*rope)[i] != 0 : (i + 1) % 4 != 0;
    layers[i].attention.chunk = uses_rope ? chunk : 0;
  }
}

// MiMo-V2-Flash: 1 marks a sliding-window layer with its own head shape (swa_*), 0 a full-attention one.
void apply_hybrid_layer_pattern(FieldReader& r, std::vector<LayerRun>& layers) {
  const auto pattern = per_layer_numbers(r, "hybrid_layer_pattern", layers.size());
  if (!pattern) return;
  AttentionMixer swa = layers.front().attention;
  swa.heads = r.uint("swa_num_attention_heads").value_or(swa.heads);
  swa.kv_heads = r.uint("swa_num_key_value_heads").value_or(swa.kv_heads);
  swa.head_dim = r.uint("swa_head_dim").value_or(swa.head_dim);
  swa.v_head_dim = r.uint("swa_v_head_dim").value_or(swa.v_head_dim);
  swa.window = r.uint("sliding_window_size").value_or(r.uint("sliding_window").value_or(0));
  swa.chunk = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].attention.window = 0;
    layers[i].attention.chunk = 0;
    if ((*pattern)[i] != 0) layers[i].attention = swa;
  }
}

// Gemma 4: the full-attention layers have their own KV heads and head width, and may share one tensor for K and V.
void apply_global_attention(FieldReader& r, std::vector<LayerRun>& layers) {
  const auto kv = r.uint("num_global_key_value_heads");
  const auto dim = r.uint("global_head_dim");
  const bool k_eq_v = r.boolean("attention_k_eq_v").value_or(false);
  if (!kv && !dim && !k_eq_v) return;
  for (auto& l : layers) {
    if (l.mixer != MixerKind::attention || l.attention.window) continue;
    if (kv) l.attention.kv_heads = *kv;
    if (dim) l.attention.head_dim = *dim;
    l.attention.k_eq_v = k_eq_v;
  }
}

// Kimi Linear and Kimi K3: linear_attn_config lists the Kimi Delta Attention layers, counted from 1 (vLLM's
// KimiLinearConfig.is_kda_layer: `(layer_idx + 1) in kda_layers`); the others keep the config's MLA.
void apply_kimi_delta_layers(FieldReader& r, std::vector<LayerRun>& layers) {
  const json* config = r.object("linear_attn_config");
  if (!config) return;
  FieldReader c(*config, r.path("linear_attn_config"));
  LinearMixer kda;
  kda.kind = LinearKind::kimi_delta;
  kda.key_heads = kda.value_heads = c.uint("num_heads").value_or(0);
  kda.key_head_dim = kda.value_head_dim = c.uint("head_dim").value_or(0);
  kda.conv_kernel = c.uint("short_conv_kernel_size").value_or(4);
  kda.full_rank_gate = c.boolean("use_full_rank_gate").value_or(false);
  const json* kda_layers = c.array("kda_layers");
  if (c.error()) return r.fail_message("linear_attn_config", c.error()->message);
  if (!kda_layers)
    return r.fail_message("linear_attn_config",
                          message("import.kda_layers_missing", "needs kda_layers, the layers (from 1) that run KDA"));
  for (const auto& v : *kda_layers) {
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() < 1 || v.get<std::uint64_t>() > layers.size())
      return r.fail_message("linear_attn_config", message("import.kda_layer_range",
                                                          "kda_layers: expected layer numbers from 1 to {n}",
                                                          {arg::digits("n", layers.size())}));
    LayerRun& layer = layers[v.get<std::size_t>() - 1];
    layer.mixer = MixerKind::linear_attention;
    layer.linear = kda;
  }
}

}  // namespace

LinearMixer read_linear_mixer(FieldReader& r) {
  LinearMixer m;
  m.key_heads = r.uint("linear_num_key_heads").value_or(0);
  m.value_heads = r.uint("linear_num_value_heads").value_or(0);
  m.key_head_dim = r.uint("linear_key_head_dim").value_or(0);
  m.value_head_dim = r.uint("linear_value_head_dim").value_or(0);
  m.conv_kernel = r.uint("linear_conv_kernel_dim").value_or(4);
  return m;
}

MambaMixer read_mamba_mixer(FieldReader& r, std::uint64_t hidden_size) {
  MambaMixer m;
  m.heads = r.uint("mamba_num_heads").value_or(0);
  m.head_dim = r.uint("mamba_head_dim").value_or(0);
  if (const auto expand = r.uint("expand").value_or(2); m.heads == 0 && m.head_dim != 0 && expand <= 64)
    m.heads = expand * hidden_size / m.head_dim;  // hidden_size ≤ 1,000,000 after validation
  m.state_size = r.uint("ssm_state_size").value_or(0);
  m.groups = r.uint("n_groups").value_or(1);
  m.conv_kernel = r.uint("conv_kernel").value_or(4);
  return m;
}

void apply_layer_patterns(FieldReader& r, std::vector<LayerRun>& layers, std::string_view type,
                          const UniformDecoder& d, std::uint64_t hidden_size) {
  if (layers.empty() || layers.size() > 10'000) return;  // validate() names the layer count
  const std::uint64_t chunk = r.uint("attention_chunk_size").value_or(0);
  apply_hybrid_layer_pattern(r, layers);
  apply_layer_types(r, layers, chunk);
  if (auto interval = r.uint("full_attention_interval"); interval && *interval > 0 && !r.has("layer_types")) {
    const LinearMixer linear = read_linear_mixer(r);
    for (std::size_t i = 0; i < layers.size(); ++i)
      if ((i + 1) % *interval != 0) layers[i].mixer = MixerKind::linear_attention, layers[i].linear = linear;
  }
  apply_kimi_delta_layers(r, layers);
  apply_chunks(r, layers, chunk, type);
  apply_global_attention(r, layers);
  if (r.has("hybrid_override_pattern") || r.has("layers_block_type")) apply_hybrid_override(r, layers, d, read_mamba_mixer(r, hidden_size));
  else apply_moe_placement(r, layers, d);
}

}  // namespace vramfit::detail
