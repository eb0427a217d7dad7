#include "formats/gguf_mix.hpp"

#include <algorithm>  // std::max
#include <array>      // std::array
#include <initializer_list>  // std::initializer_list
#include <string>     // std::string

#include "util/text.hpp"  // lower_ascii

namespace vramfit {
namespace {

// ---- llama.cpp src/llama-quant.cpp: llama_ftype_get_default_type and llama_tensor_get_type ----

struct MixInfo {
  GgufMix mix;
  std::string_view name;
  GgmlType base;  // llama_ftype_get_default_type
};
// The legacy and K-quant mixes first (the format lists show them first), then llama-quantize's others.
constexpr std::array<MixInfo, 34> kMixes{{
    {GgufMix::f16, "f16", GgmlType::f16},           {GgufMix::bf16, "bf16", GgmlType::bf16},
    {GgufMix::q8_0, "q8_0", GgmlType::q8_0},        {GgufMix::q4_0, "q4_0", GgmlType::q4_0},
    {GgufMix::q4_1, "q4_1", GgmlType::q4_1},        {GgufMix::q5_0, "q5_0", GgmlType::q5_0},
    {GgufMix::q5_1, "q5_1", GgmlType::q5_1},        {GgufMix::q2_k, "q2_k", GgmlType::q2_k},
    {GgufMix::q3_k_s, "q3_k_s", GgmlType::q3_k},    {GgufMix::q3_k_m, "q3_k_m", GgmlType::q3_k},
    {GgufMix::q3_k_l, "q3_k_l", GgmlType::q3_k},    {GgufMix::q4_k_s, "q4_k_s", GgmlType::q4_k},
    {GgufMix::q4_k_m, "q4_k_m", GgmlType::q4_k},    {GgufMix::q5_k_s, "q5_k_s", GgmlType::q5_k},
    {GgufMix::q5_k_m, "q5_k_m", GgmlType::q5_k},    {GgufMix::q6_k, "q6_k", GgmlType::q6_k},
    {GgufMix::q1_0, "q1_0", GgmlType::q1_0},        {GgufMix::q2_0, "q2_0", GgmlType::q2_0},
    {GgufMix::mxfp4_moe, "mxfp4_moe", GgmlType::mxfp4},
    {GgufMix::iq2_xxs, "iq2_xxs", GgmlType::iq2_xxs}, {GgufMix::iq2_xs, "iq2_xs", GgmlType::iq2_xs},
    {GgufMix::iq2_s, "iq2_s", GgmlType::iq2_xs},    {GgufMix::iq2_m, "iq2_m", GgmlType::iq2_s},
    {GgufMix::iq1_s, "iq1_s", GgmlType::iq1_s},     {GgufMix::iq1_m, "iq1_m", GgmlType::iq1_m},
    {GgufMix::tq1_0, "tq1_0", GgmlType::tq1_0},     {GgufMix::tq2_0, "tq2_0", GgmlType::tq2_0},
    {GgufMix::q2_k_s, "q2_k_s", GgmlType::q2_k},    {GgufMix::iq3_xxs, "iq3_xxs", GgmlType::iq3_xxs},
    {GgufMix::iq3_s, "iq3_s", GgmlType::iq3_s},     {GgufMix::iq3_m, "iq3_m", GgmlType::iq3_s},
    {GgufMix::iq3_xs, "iq3_xs", GgmlType::iq3_s},   {GgufMix::iq4_nl, "iq4_nl", GgmlType::iq4_nl},
    {GgufMix::iq4_xs, "iq4_xs", GgmlType::iq4_xs},
}};

const MixInfo* mix_info(GgufMix mix) {
  for (const auto& m : kMixes)
    if (m.mix == mix) return &m;
  return nullptr;
}

// llama-quant.cpp tensor_allows_quantization: only matrices named *weight are quantized; norms, the MoE router,
// DeepSeek-V4's token-to-expert table, Mamba's conv1d, position and token-type tables keep the type the converter
// wrote (convert_hf_to_gguf.py forces those to F32).
bool llama_quantizes(const TensorShape& t) {
  return t.name.ends_with("weight") && t.shape.size() >= 2 && t.name.find("_norm.weight") == std::string::npos &&
         t.name.find("ffn_gate_inp.weight") == std::string::npos &&
         t.name.find("ffn_gate_tid2eid.weight") == std::string::npos &&
         t.name.find("ssm_conv1d") == std::string::npos && t.name != "position_embd.weight" &&
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

// llama-quant.cpp's ffn_down counter (qs.i_ffn_down): the ffn_down, ffn_down_exps and ffn_down_shexp tensors met
// before this one, in the loader's order (by block, then by name).
std::int64_t ffn_down_counter(const ModelSpec& s, const TensorShape& t) {
  std::int64_t count = 0;
  for (std::int64_t layer = 0; layer < t.layer; ++layer) {
    const MlpBlock& mlp = s.layer(static_cast<std::uint64_t>(layer)).mlp;
    count += mlp.kind == MlpKind::dense ? 1 : mlp.kind == MlpKind::moe ? 1 + (mlp.shared_experts > 0) : 0;
  }
  const bool after_routed = t.name.find("ffn_down_shexp") != std::string::npos &&
                            s.layer(static_cast<std::uint64_t>(std::max<std::int64_t>(t.layer, 0))).mlp.kind ==
                                MlpKind::moe;
  return count + (after_routed ? 1 : 0);
}

// Whether a layer holds an attn_v-like tensor as model/tensors.cpp names it: attention's attn_v (not Gemma 4's
// K-equals-V layers, nor DeepSeek-V4's single-entry attn_kv), MLA's attn_kv_b, Kimi Delta Attention's attn_v.
bool holds_attn_v_like(const LayerRun& run) {
  switch (run.mixer) {
    case MixerKind::attention: return !run.attention.k_eq_v && !run.attention.one_kv_entry;
    case MixerKind::latent_attention: return true;
    case MixerKind::linear_attention: return run.linear.kind == LinearKind::kimi_delta;
    default: return false;
  }
}

// llama-quant.cpp layer_info: with more than one expert the FFN's layer is parsed from its name ("blk.%d."); else
// it is the count of that FFN tensor met so far (qs.i_ffn_down, i_ffn_gate, i_ffn_up), which skips the layers
// without an MLP (Nemotron-H's Mamba and attention blocks).
std::int64_t ffn_layer_index(const ModelSpec& s, std::uint64_t n_expert, std::int64_t layer) {
  if (n_expert > 1) return layer;
  std::int64_t count = 0;
  for (std::int64_t l = 0; l < layer; ++l) count += s.layer(static_cast<std::uint64_t>(l)).mlp.kind != MlpKind::none;
  return count;
}

GgmlType fallback_type(GgmlType t, std::uint64_t row) {  // tensor_type_fallback in llama-quant.cpp
  GgmlType out = GgmlType::f16;
  switch (t) {
    case GgmlType::tq1_0: case GgmlType::tq2_0: case GgmlType::q2_0: case GgmlType::q2_k: case GgmlType::q3_k:
      out = GgmlType::q4_0; break;
    case GgmlType::iq2_xxs: case GgmlType::iq2_xs: case GgmlType::iq2_s: case GgmlType::iq3_xxs:
    case GgmlType::iq3_s: case GgmlType::iq1_s: case GgmlType::iq1_m: case GgmlType::iq4_xs: out = GgmlType::iq4_nl; break;
    case GgmlType::q4_k: out = GgmlType::q5_0; break;
    case GgmlType::q5_k: out = GgmlType::q5_1; break;
    case GgmlType::q6_k: out = GgmlType::q8_0; break;
    default: break;  // llama.cpp refuses these; F16 keeps the estimate going
  }
  return row % ggml_type_info(out).block_elements == 0 ? out : GgmlType::f16;
}

// What convert_hf_to_gguf.py writes at --outtype f16: F16 for matrices named *weight, F32 for the rest (biases,
// gpt-oss's per-expert biases included, though they are 2-D) and for the kinds it always keeps in F32
// (ModelBase.prepare_tensors: FFN_GATE_INP, POS_EMBD, TOKEN_TYPES, SSM_CONV1D).
GgmlType source_type(const TensorShape& t) {
  if (t.shape.size() < 2 || !t.name.ends_with("weight") || t.name.find("ffn_gate_inp") != std::string::npos ||
      t.name.find("ssm_conv1d") != std::string::npos || t.name == "position_embd.weight" ||
      t.name == "token_types.weight")
    return GgmlType::f32;
  return GgmlType::f16;
}

// gpt-oss's routed experts stay MXFP4 in every file type: the converter writes them as the checkpoint ships them
// (llama.cpp conversion/gpt_oss.py, GptOssModel.repack_mxfp4: add_tensor(..., raw_dtype=MXFP4)) and llama-quantize
// will not requantize a quantized tensor (src/llama-quant.cpp: "requantizing from type %s is disabled" unless
// --allow-requantize), so the published K-quant and F16 files keep them (bartowski: "Q4_K_M with all FFN kept at
// MXFP4_MOE"). A checkpoint dequantized to BF16 has no such tensors and is quantized like any other.
bool converter_keeps_mxfp4(const ModelSpec& s, const TensorShape& t) {
  return s.architecture == "gpt_oss" && lower_ascii(s.quantization) == "mxfp4" &&
         t.name.find("_exps.weight") != std::string::npos;
}

// llama-quant.cpp tensor_get_category, by the tensor's name.
enum class Category { output, token_embd, attn_qkv, attn_kv_b, attn_v, attn_k, attn_q, attn_output, ffn_up, ffn_gate,
                      ffn_down, other };

Category category_of(const std::string& name) {
  const auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
  if (name == "output.weight") return Category::output;
  if (name == "token_embd.weight" || name == "per_layer_token_embd.weight") return Category::token_embd;
  if (has("attn_qkv.weight")) return Category::attn_qkv;
  if (has("attn_kv_b.weight")) return Category::attn_kv_b;
  if (has("attn_v.weight")) return Category::attn_v;
  if (has("attn_k.weight")) return Category::attn_k;
  if (has("attn_q.weight")) return Category::attn_q;
  if (has("attn_output.weight")) return Category::attn_output;
  if (has("ffn_up")) return Category::ffn_up;
  if (has("ffn_gate")) return Category::ffn_gate;
  if (has("ffn_down")) return Category::ffn_down;
  return Category::other;
}

// llama-quant.cpp category_is_attn_v: "attention-v-like tensors (more sensitive to quantization)" share attn_v's
// rules and its counters. Its ATTENTION_QKV branch comes after this one and is never reached.
bool is_attn_v_like(Category c) {
  return c == Category::attn_v || c == Category::attn_qkv || c == Category::attn_kv_b;
}

// What llama_tensor_get_type_impl reads besides the tensor: the file type, the model's shape, and the position of
// the tensor among its kind (i of n).
struct Choice {
  const ModelSpec& s;
  GgufMix mix;
  bool imatrix;
  const TensorShape& t;
  std::uint64_t n_expert, n_gqa;
  std::int64_t i, n;  // block index and block count
  bool falcon;

  bool is(std::initializer_list<GgufMix> mixes) const {
    return std::find(mixes.begin(), mixes.end(), mix) != mixes.end();
  }
};

using T = GgmlType;
using M = GgufMix;

T output_type(const Choice& c, T type) {  // output.weight, and token_embd.weight when it serves as the output
  if (c.mix == M::mxfp4_moe) return T::q8_0;
  if (c.t.shape[0] % ggml_type_info(type).block_elements != 0 || c.falcon) return T::q8_0;
  if (c.is({M::iq2_xxs, M::iq2_xs, M::iq3_xxs, M::iq1_s, M::iq2_s, M::iq2_m, M::iq1_m})) return T::q5_k;
  return type != T::q8_0 ? T::q6_k : type;
}

T token_embd_type(const Choice& c, T type) {
  if (c.is({M::iq2_xxs, M::iq2_xs, M::iq1_s, M::iq1_m})) return T::q2_k;
  if (c.is({M::iq2_s, M::iq2_m, M::iq3_xxs})) return T::iq3_s;
  if (c.is({M::tq1_0, M::tq2_0, M::q2_0})) return T::q4_k;
  return type;
}

// The 1- and 2-bit IQ mixes have their own branch.
T low_iq_type(const Choice& c, Category cat, T type) {
  const bool iq2_big = c.is({M::iq2_s, M::iq2_m});
  if (is_attn_v_like(cat)) return c.n_gqa >= 4 || c.n_expert >= 4 ? T::q4_k : iq2_big ? T::iq3_s : T::q2_k;
  if (cat == Category::attn_k) return c.n_expert == 8 ? T::q4_k : type;
  if (cat == Category::ffn_down)
    return ffn_down_counter(c.s, c.t) < c.n / 8 ? (iq2_big ? T::iq3_s : T::q2_k) : type;
  if (cat == Category::attn_output) {
    if (c.n_expert == 8) return T::q5_k;
    if (c.is({M::iq1_s, M::iq1_m})) return T::iq2_xxs;
    if (iq2_big) return T::iq3_s;
  }
  return type;
}

T attn_v_type(const Choice& c, T type) {
  // init_quantize_state_counters: n_attention_wv counts every attn_v-like tensor; i_attention_wv those met before
  // this one, in the loader's order (by block).
  std::int64_t i = 0, n = 0;
  for (std::uint64_t l = 0; l < c.s.num_layers(); ++l) {
    const bool has = holds_attn_v_like(c.s.layer(l));
    i += has && static_cast<std::int64_t>(l) < c.i;
    n += has;
  }
  if (c.mix == M::q2_k) type = c.n_gqa >= 4 ? T::q4_k : T::q3_k;
  else if (c.mix == M::q2_k_s && c.n_gqa >= 4) type = T::q4_k;
  else if (c.mix == M::iq3_xxs) type = c.n_gqa >= 4 ? T::q4_k : !c.imatrix ? T::iq3_s : T::iq3_xxs;
  else if (c.is({M::iq3_xs, M::iq3_s}) && c.n_gqa >= 4) type = T::q4_k;
  else if (c.mix == M::iq3_m) type = T::q4_k;
  else if (c.mix == M::q3_k_m) type = i < 2 ? T::q5_k : T::q4_k;
  else if (c.mix == M::q3_k_l) type = T::q5_k;
  else if (c.is({M::iq4_nl, M::iq4_xs}) && c.n_gqa >= 4) type = T::q5_k;
  else if (c.is({M::q4_k_m, M::q5_k_m}) && use_more_bits(i, n)) type = T::q6_k;
  else if (c.mix == M::q4_k_s && i < 4) type = T::q5_k;
  if (is_70b_class(c.s) && (type == T::q3_k || type == T::q4_k)) type = T::q5_k;
  if (c.n_expert == 8) type = T::q8_0;
  return type;
}

T ffn_down_type(const Choice& c, T type) {
  const auto i = ffn_layer_index(c.s, c.n_expert, c.i), n = c.n;
  if (c.mix == M::q2_k) return T::q3_k;
  if (c.mix == M::q2_k_s) return i < n / 8 ? T::q4_k : type;
  if (c.mix == M::iq3_xxs && !c.imatrix) return i < n / 8 ? T::q4_k : T::q3_k;
  if (c.mix == M::q3_k_m) return i < n / 16 ? T::q5_k : (!c.falcon || use_more_bits(i, n)) ? T::q4_k : T::q3_k;
  if (c.mix == M::iq3_m && (i < n / 8 || (c.n_expert == 8 && use_more_bits(i, n)))) return T::q4_k;
  if (c.mix == M::q3_k_l) return c.falcon ? T::q4_k : T::q5_k;
  if (c.mix == M::q4_k_m) {
    if (c.falcon) return i < n / 16 ? T::q6_k : use_more_bits(i, n) ? T::q5_k : T::q4_k;
    return use_more_bits(i, n) ? T::q6_k : type;
  }
  if (i < n / 8 && c.is({M::iq4_nl, M::iq4_xs}) && !c.imatrix) return T::q5_k;
  if (c.mix == M::q5_k_m && use_more_bits(i, n)) return T::q6_k;
  if (c.mix == M::q4_k_s && !c.falcon && i < n / 8) return T::q5_k;
  if (c.is({M::q4_0, M::q5_0}) && c.imatrix && i < n / 8) return c.mix == M::q4_0 ? T::q4_1 : T::q5_1;
  return type;
}

T attn_output_type(const Choice& c, T type) {
  if (c.falcon) return c.mix == M::q3_k_l ? T::q4_k : type;
  if (c.n_expert == 8)
    return c.is({M::q2_k, M::iq3_xs, M::iq3_xxs, M::q3_k_s, M::q3_k_m, M::iq4_nl, M::q4_k_s, M::q4_k_m, M::iq3_s,
                 M::iq3_m, M::iq4_xs})
               ? T::q5_k
               : type;
  if (c.mix == M::q2_k) return T::q3_k;
  if (c.mix == M::iq3_xxs) return T::iq3_s;
  if (c.mix == M::q3_k_m || c.mix == M::iq3_m) return T::q4_k;
  if (c.mix == M::q3_k_l) return T::q5_k;
  return type;
}

T block_type(const Choice& c, Category cat, T type) {
  if (is_attn_v_like(cat)) return attn_v_type(c, type);
  switch (cat) {
    case Category::attn_k:
      if (c.n_expert == 8) return T::q8_0;
      return c.mix == M::iq3_xs ? T::iq3_xxs : c.mix == M::iq3_xxs ? T::iq2_s : type;
    case Category::attn_q: return c.mix == M::iq3_xs ? T::iq3_xxs : c.mix == M::iq3_xxs ? T::iq2_s : type;
    case Category::ffn_down: return ffn_down_type(c, type);
    case Category::attn_output: return attn_output_type(c, type);
    case Category::ffn_gate:
    case Category::ffn_up: {
      const std::int64_t i = ffn_layer_index(c.s, c.n_expert, c.i);
      return c.mix == M::iq3_xs && i >= c.n / 8 && i < 7 * c.n / 8 ? T::iq3_xxs : type;
    }
    default: return type;
  }
}

}  // namespace

std::optional<GgufMix> gguf_mix_by_name(std::string_view name) noexcept {
  std::string lower = lower_ascii(name);
  if (lower.rfind("gguf-", 0) == 0) lower.erase(0, 5);
  for (const auto& m : kMixes)
    if (lower == m.name) return m.mix;
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

bool gguf_mix_uses_imatrix(GgufMix mix) noexcept {
  switch (mix) {
    case M::iq2_xxs: case M::iq2_xs: case M::iq2_s: case M::iq2_m: case M::iq1_s: case M::iq1_m: case M::q2_k_s:
    case M::iq3_xxs: case M::iq3_s: case M::iq3_m: case M::iq3_xs: case M::iq4_nl: case M::iq4_xs: return true;
    default: return false;
  }
}

std::optional<GgufMix> gguf_mix_for_checkpoint(std::string_view quantization) noexcept {
  if (lower_ascii(quantization) == "mxfp4") return GgufMix::mxfp4_moe;
  return std::nullopt;
}

GgmlType gguf_storage_type(const ModelSpec& spec, GgufMix mix, GgmlType pure_type, const TensorShape& t) {
  if (converter_keeps_mxfp4(spec, t)) return GgmlType::mxfp4;
  if (mix != GgufMix::pure) return detail::gguf_tensor_type(spec, mix, t);
  if (!llama_quantizes(t)) return source_type(t);
  if (t.shape[0] % ggml_type_info(pure_type).block_elements != 0) return fallback_type(pure_type, t.shape[0]);
  return pure_type;
}

namespace detail {

GgmlType gguf_tensor_type(const ModelSpec& s, GgufMix mix, const TensorShape& t, bool imatrix) {
  const MixInfo* info = mix_info(mix);
  const GgmlType base = info ? info->base : GgmlType::f16;
  if (!llama_quantizes(t)) return source_type(t);
  if (!ggml_type_info(base).quantized) return base;  // F16/BF16 files: every matrix in that type

  const Choice c{s,
                 mix,
                 imatrix,
                 t,
                 routed_experts(s),
                 grouped_query_ratio(s),
                 static_cast<std::int64_t>(t.layer < 0 ? 0 : t.layer),
                 static_cast<std::int64_t>(s.num_layers()),
                 s.architecture == "falcon"};
  const bool has_output = s.has_lm_head && !s.tied_embeddings;
  const Category cat = category_of(t.name);

  T type = base;
  if (cat == Category::output || (!has_output && cat == Category::token_embd)) type = output_type(c, base);
  else if (mix == M::mxfp4_moe) type = t.shape.size() >= 3 && t.shape[2] > 1 ? T::mxfp4 : T::q8_0;  // experts
  else if (cat == Category::token_embd) type = token_embd_type(c, base);
  else if (c.is({M::iq2_xxs, M::iq2_xs, M::iq1_s, M::iq2_s, M::iq2_m, M::iq1_m})) type = low_iq_type(c, cat, base);
  else type = block_type(c, cat, base);
  const std::uint64_t row = t.shape[0];
  if (row % ggml_type_info(type).block_elements != 0) type = fallback_type(type, row);
  return type;
}

}  // namespace detail
}  // namespace vramfit
