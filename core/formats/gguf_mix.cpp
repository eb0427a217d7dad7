#include "formats/gguf_mix.hpp"

#include <array>   // std::array
#include <string>  // std::string

namespace vramfit {
namespace {

// ---- llama.cpp src/llama-quant.cpp llama_tensor_get_type ----

struct MixInfo {
  GgufMix mix;
  std::string_view name;
  GgmlType base;  // default_type in llama_model_quantize_impl
};
constexpr std::array<MixInfo, 16> kMixes{{
    {GgufMix::f16, "f16", GgmlType::f16},       {GgufMix::bf16, "bf16", GgmlType::bf16},
    {GgufMix::q8_0, "q8_0", GgmlType::q8_0},    {GgufMix::q4_0, "q4_0", GgmlType::q4_0},
    {GgufMix::q4_1, "q4_1", GgmlType::q4_1},    {GgufMix::q5_0, "q5_0", GgmlType::q5_0},
    {GgufMix::q5_1, "q5_1", GgmlType::q5_1},    {GgufMix::q2_k, "q2_k", GgmlType::q2_k},
    {GgufMix::q3_k_s, "q3_k_s", GgmlType::q3_k}, {GgufMix::q3_k_m, "q3_k_m", GgmlType::q3_k},
    {GgufMix::q3_k_l, "q3_k_l", GgmlType::q3_k}, {GgufMix::q4_k_s, "q4_k_s", GgmlType::q4_k},
    {GgufMix::q4_k_m, "q4_k_m", GgmlType::q4_k}, {GgufMix::q5_k_s, "q5_k_s", GgmlType::q5_k},
    {GgufMix::q5_k_m, "q5_k_m", GgmlType::q5_k}, {GgufMix::q6_k, "q6_k", GgmlType::q6_k},
}};

const MixInfo* mix_info(GgufMix mix) {
  for (const auto& m : kMixes)
    if (m.mix == mix) return &m;
  return nullptr;
}

// llama-quant.cpp: only matrices named *weight are quantized; norms, the MoE router, position and token-type
// tables keep the type the converter wrote (convert_hf_to_gguf.py forces those to F32).
bool llama_quantizes(const TensorShape& t) {
  return t.name.ends_with("weight") && t.shape.size() >= 2 && t.name.find("_norm.weight") == std::string::npos &&
         t.name.find("ffn_gate_inp.weight") == std::string::npos && t.name != "position_embd.weight" &&
         t.name != "token_types.weight";
}

bool use_more_bits(std::int64_t i, std::int64_t n) {  // llama-quant.cpp use_more_bits
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

// llama.cpp's hparams.n_gqa(): query heads per KV head, read from the first layer (as llama-quant.cpp does).
std::uint64_t grouped_query_ratio(const ModelSpec& s) {
  const LayerRun& first = s.layers.front();
  if (first.mixer != MixerKind::attention || first.attention.kv_heads == 0) return 1;
  return first.attention.heads / first.attention.kv_heads;
}

// llama.cpp's hparams.n_expert: the routed experts of the MoE layers.
std::uint64_t routed_experts(const ModelSpec& s) {
  std::uint64_t n = 0;
  for (const auto& run : s.layers) n = std::max(n, run.mlp.kind == MlpKind::moe ? run.mlp.routed_experts : 0);
  return n;
}

// llama.cpp's LLM_TYPE_70B: 80 layers, hidden 8192, grouped-query attention (Llama 2/3 70B, Qwen2 72B).
bool is_70b_class(const ModelSpec& s) {
  return s.num_layers() == 80 && s.hidden_size == 8192 && grouped_query_ratio(s) > 1;
}

GgmlType fallback_type(GgmlType t, std::uint64_t row) {  // convert_incompatible_tensor in llama_tensor_get_type
  GgmlType out = GgmlType::f16;
  switch (t) {
    case GgmlType::tq1_0: case GgmlType::tq2_0: out = GgmlType::q4_0; break;
    case GgmlType::iq2_xxs: case GgmlType::iq2_xs: case GgmlType::iq2_s: case GgmlType::iq3_xxs:
    case GgmlType::iq3_s: case GgmlType::iq1_s: case GgmlType::iq1_m: case GgmlType::q2_k: case GgmlType::q3_k:
    case GgmlType::iq4_xs: out = GgmlType::iq4_nl; break;
    case GgmlType::q4_k: out = GgmlType::q5_0; break;
    case GgmlType::q5_k: out = GgmlType::q5_1; break;
    case GgmlType::q6_k: out = GgmlType::q8_0; break;
    default: break;  // llama.cpp refuses these; F16 keeps the estimate going
  }
  return row % ggml_type_info(out).block_elements == 0 ? out : GgmlType::f16;
}

GgmlType source_type(const TensorShape& t) {  // what convert_hf_to_gguf.py writes at --outtype f16
  if (t.shape.size() < 2 || t.name.find("ffn_gate_inp") != std::string::npos ||
      t.name == "position_embd.weight" || t.name == "token_types.weight")
    return GgmlType::f32;
  return GgmlType::f16;
}

}  // namespace

std::optional<GgufMix> gguf_mix_by_name(std::string_view name) noexcept {
  for (const auto& m : kMixes)
    if (name == m.name) return m.mix;
  return std::nullopt;
}

std::string_view gguf_mix_name(GgufMix mix) noexcept {
  const MixInfo* m = mix_info(mix);
  return m ? m->name : std::string_view("gguf");
}

std::vector<GgufMix> gguf_mixes() {
  std::vector<GgufMix> out;
  for (const auto& m : kMixes) out.push_back(m.mix);
  return out;
}

GgmlType gguf_storage_type(const ModelSpec& spec, GgufMix mix, GgmlType pure_type, const TensorShape& t) {
  if (mix != GgufMix::pure) return detail::gguf_tensor_type(spec, mix, t);
  if (!llama_quantizes(t)) return source_type(t);
  if (t.shape[0] % ggml_type_info(pure_type).block_elements != 0) return fallback_type(pure_type, t.shape[0]);
  return pure_type;
}

namespace detail {

GgmlType gguf_tensor_type(const ModelSpec& s, GgufMix mix, const TensorShape& t) {
  const MixInfo* info = mix_info(mix);
  const GgmlType base = info ? info->base : GgmlType::f16;
  if (!llama_quantizes(t)) return source_type(t);
  if (!ggml_type_info(base).quantized) return base;  // F16/BF16 files: every matrix in that type

  using T = GgmlType;
  using M = GgufMix;
  const std::string& name = t.name;
  const auto n_expert = routed_experts(s);
  const auto n_gqa = grouped_query_ratio(s);
  const auto i = static_cast<std::int64_t>(t.layer < 0 ? 0 : t.layer);  // tensors are visited in layer order
  const auto n = static_cast<std::int64_t>(s.num_layers());
  const bool has_output = s.has_lm_head && !s.tied_embeddings;
  const std::uint64_t row = t.shape[0];

  T type = base;
  if (name == "output.weight" || (!has_output && name == "token_embd.weight")) {
    if (row % ggml_type_info(type).block_elements != 0 || s.architecture == "falcon") type = T::q8_0;
    else if (type != T::q8_0) type = T::q6_k;
  } else if (name == "token_embd.weight") {
    // The mixes modelled here keep the base type for the token embeddings.
  } else if (name.find("attn_v.weight") != std::string::npos) {
    if (mix == M::q2_k) type = n_gqa >= 4 ? T::q4_k : T::q3_k;
    else if (mix == M::q3_k_m) type = i < 2 ? T::q5_k : T::q4_k;
    else if (mix == M::q3_k_l) type = T::q5_k;
    else if ((mix == M::q4_k_m || mix == M::q5_k_m) && use_more_bits(i, n)) type = T::q6_k;
    else if (mix == M::q4_k_s && i < 4) type = T::q5_k;
    if (is_70b_class(s) && (type == T::q3_k || type == T::q4_k)) type = T::q5_k;
    if (n_expert == 8) type = T::q8_0;
  } else if (name.find("attn_k.weight") != std::string::npos) {
    if (n_expert == 8) type = T::q8_0;
  } else if (name.find("ffn_down") != std::string::npos) {
    const bool falcon = s.architecture == "falcon";
    if (mix == M::q2_k) type = T::q3_k;
    else if (mix == M::q3_k_m) type = i < n / 16 ? T::q5_k : (!falcon || use_more_bits(i, n)) ? T::q4_k : T::q3_k;
    else if (mix == M::q3_k_l) type = falcon ? T::q4_k : T::q5_k;
    else if (mix == M::q4_k_m) {
      if (falcon) type = i < n / 16 ? T::q6_k : use_more_bits(i, n) ? T::q5_k : T::q4_k;
      else if (use_more_bits(i, n)) type = T::q6_k;
    } else if (mix == M::q5_k_m && use_more_bits(i, n)) type = T::q6_k;
    else if (mix == M::q4_k_s && !falcon && i < n / 8) type = T::q5_k;
  } else if (name.find("attn_output.weight") != std::string::npos) {
    if (s.architecture != "falcon") {
      if (n_expert == 8) {
        if (mix == M::q2_k || mix == M::q3_k_s || mix == M::q3_k_m || mix == M::q4_k_s || mix == M::q4_k_m)
          type = T::q5_k;
      } else {
        if (mix == M::q2_k) type = T::q3_k;
        else if (mix == M::q3_k_m) type = T::q4_k;
        else if (mix == M::q3_k_l) type = T::q5_k;
      }
    } else if (mix == M::q3_k_l) {
      type = T::q4_k;
    }
  } else if (name.find("attn_qkv.weight") != std::string::npos) {
    if (mix == M::q3_k_m || mix == M::q3_k_l) type = T::q4_k;
    else if (mix == M::q4_k_m) type = T::q5_k;
    else if (mix == M::q5_k_m) type = T::q6_k;
  }
  if (row % ggml_type_info(type).block_elements != 0) type = fallback_type(type, row);
  return type;
}

}  // namespace detail
}  // namespace vramfit
