#include "formats/weight_formats.hpp"

#include <algorithm>         // std::sort, std::find, std::any_of
#include <array>             // std::array
#include <initializer_list>  // role_of_tensor's name parts
#include <optional>          // std::optional
#include <string>            // std::to_string
#include <utility>           // std::move

#include "formats/gguf_mix.hpp"
#include "formats/tally.hpp"
#include "util/small_sort.hpp"
#include "util/text.hpp"  // lower_ascii
#include "util/units.hpp"

namespace vramfit {
namespace {

// ---- packed formats ----

struct LinearShape {
  std::uint64_t in = 0, out = 0, count = 1;  // count: experts in a 3-D tensor
};
LinearShape linear_shape(const TensorShape& t) {
  LinearShape l{t.shape[0], t.shape[1], 1};
  if (t.shape.size() >= 3) l.count = t.shape[2];
  return l;
}

// A quantizable linear layer inside a block: everything with a 2-D (or per-expert 3-D) weight except the router.
bool is_block_linear(const TensorShape& t) {
  return t.layer >= 0 && t.shape.size() >= 2 && t.name.ends_with(".weight") &&
         t.name.find("ffn_gate_inp") == std::string::npos && t.role != TensorRole::embedding &&
         t.role != TensorRole::output;  // an MTP layer's own embeddings and head
}

class Accumulator {
 public:
  explicit Accumulator(WeightBytes& out) : out_(out) {}
  void add(TensorRole role, std::string_view type, std::uint64_t elements, std::optional<std::uint64_t> bytes,
           std::uint64_t params) {
    if (!bytes) {
      overflow_ = true;
      return;
    }
    tally_tensor(out_, role, type, elements, *bytes, params);
  }
  bool overflow() const { return overflow_; }

 private:
  WeightBytes& out_;
  bool overflow_ = false;
};

std::optional<std::uint64_t> mul3(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const auto ab = checked_mul(a, b);
  return ab ? checked_mul(*ab, c) : std::nullopt;
}

std::string_view dtype_label(DType d) { return dtype_info(d).name; }

// "4.0", "4.65", "2.5": bits per weight from hundredths, as the ExLlama repositories write them.
std::string bits_text(std::uint32_t centibits) {
  std::string out = std::to_string(centibits / 100) + "." + std::to_string(centibits % 100 / 10);
  if (centibits % 10) out += std::to_string(centibits % 10);
  return out;
}

}  // namespace

TensorRole role_of_tensor(std::string_view n) noexcept {
  const auto has_any = [n](std::initializer_list<std::string_view> parts) {
    return std::any_of(parts.begin(), parts.end(),
                       [n](std::string_view part) { return n.find(part) != std::string_view::npos; });
  };
  if (has_any({"norm", "ln_", ".ln", "LayerNorm"})) return TensorRole::norm;
  if (n == "output.weight" || n == "output.bias" || has_any({"lm_head"})) return TensorRole::output;
  if (has_any({"token_embd", "position_embd", "token_types", "embed_tokens", "wte.", "wpe.", "embeddings",
               "embed_positions"}))
    return TensorRole::embedding;
  if (has_any({"attn", "attention"})) return TensorRole::attention;
  if (has_any({"ffn", "mlp", "experts", "feed_forward", "block_sparse_moe", "exp_probs"})) return TensorRole::mlp;
  return TensorRole::other;
}

void tally_tensor(WeightBytes& out, TensorRole role, std::string_view storage_type, std::uint64_t elements,
                  std::uint64_t bytes, std::uint64_t params) {
  out.total += bytes;
  out.params += params;
  switch (role) {
    case TensorRole::embedding: out.embedding += bytes; break;
    case TensorRole::output: out.output += bytes; break;
    case TensorRole::attention: out.attention += bytes; break;
    case TensorRole::mlp: out.mlp += bytes; break;
    case TensorRole::norm: out.norms += bytes; break;
    case TensorRole::other: out.other += bytes; break;
  }
  for (auto& s : out.storage) {
    if (s.type == storage_type) {
      s.tensors += 1;
      s.elements += elements;
      s.bytes += bytes;
      return;
    }
  }
  out.storage.push_back(StorageTally{std::string(storage_type), 1, elements, bytes});
}

void finish_tally(WeightBytes& out) {
  detail::small_stable_sort(out.storage, [](const StorageTally& a, const StorageTally& b) { return a.bytes > b.bytes; });
}

namespace {

bool packed_int(WeightScheme s) {
  return s == WeightScheme::gptq || s == WeightScheme::awq || s == WeightScheme::autoround;
}

// What the packed-format arithmetic relies on: bit widths, group sizes and bits per weight the formats have.
std::optional<Error> check_format(const WeightFormat& f) {
  const bool grouped = packed_int(f.scheme) || f.scheme == WeightScheme::compressed || f.scheme == WeightScheme::mlx;
  if (packed_int(f.scheme) && !(f.bits == 2 || f.bits == 3 || f.bits == 4 || f.bits == 8))
    return make_error("weights", message("weights.packed_bits", "GPTQ/AWQ/AutoRound bits must be 2, 3, 4 or 8, got {bits}",
                                         {arg::digits("bits", f.bits)}));
  if (f.scheme == WeightScheme::compressed && !(f.bits == 4 || f.bits == 8))
    return make_error("weights", message("weights.compressed_bits", "compressed-tensors weight bits must be 4 or 8, got {bits}",
                                         {arg::digits("bits", f.bits)}));
  if (f.scheme == WeightScheme::mlx && !(f.bits >= 2 && f.bits <= 8 && f.bits != 7))
    return make_error("weights", message("weights.mlx_bits", "MLX bits must be 2, 3, 4, 5, 6 or 8, got {bits}",
                                         {arg::digits("bits", f.bits)}));
  if (f.scheme == WeightScheme::mlx && f.group_size != 32 && f.group_size != 64 && f.group_size != 128)
    return make_error("weights", message("weights.mlx_group", "MLX group size must be 32, 64 or 128, got {group}",
                                         {arg::text("group", std::to_string(f.group_size))}));
  if (grouped && f.group_size != -1 && (f.group_size <= 0 || f.group_size > 1'000'000))
    return make_error("weights", message("weights.group_size",
                                         "group size must be positive or -1 (one group per output row), got {group}",
                                         {arg::text("group", std::to_string(f.group_size))}));
  if ((f.scheme == WeightScheme::exl2 || f.scheme == WeightScheme::exl3) &&
      (f.centibits_per_weight < 100 || f.centibits_per_weight > 1600 || f.head_bits < 2 || f.head_bits > 8))
    return make_error("weights", message("weights.exllama_bits", "ExLlama bits per weight must be 1.0 to 16.0 and head bits 2 to 8"));
  return std::nullopt;
}

// A bare parameter count has no tensor roles: every parameter in a plain dtype.
Result<WeightBytes> bare_weights_bytes(const ModelSpec& spec, const WeightFormat& f) {
  if (f.scheme != WeightScheme::plain)
    return make_error("weights", message("weights.bare_params",
                                         "a bare parameter count has no tensor shapes; {format} needs the architecture "
                                         "(config.json, a preset or a model file)",
                                         {arg::text("format", weight_format_name(f))}));
  const auto bytes = bytes_for(spec.bare_params, f.dtype);
  if (!bytes) return make_error("params", message("weights.params_too_large", "too large"));
  WeightBytes out;
  tally_tensor(out, TensorRole::other, dtype_label(f.dtype), spec.bare_params, *bytes, spec.bare_params);
  out.groups.push_back(WeightGroup{"other", std::string(dtype_label(f.dtype)), spec.bare_params, *bytes});
  return out;
}

// Int8Params: int8 [out, in] + SCB fp32 [out] (bitsandbytes LLM.int8, Dettmers et al. 2022).
void add_bnb_int8(Accumulator& acc, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  acc.add(t.role, "int8", n, n, n);
  acc.add(t.role, "fp32 row scales", l.out * l.count, mul3(l.out, l.count, 4), 0);
}

// Params4bit: 2 weights per uint8; absmax per block of 64 (QLoRA §3, bitsandbytes defaults).
void add_bnb_nf4(Accumulator& acc, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  const auto blocks = ceil_div(n, 64);
  acc.add(t.role, "nf4", n, ceil_div(n, 2), n);
  if (f.double_quant) {
    // uint8 absmax per block + fp32 absmax per 256 blocks + the 256-entry fp32 code and its offset
    acc.add(t.role, "nf4 absmax (double quant)", blocks, checked_add(blocks, ceil_div(blocks, 256) * 4 + 1028), 0);
  } else {
    acc.add(t.role, "nf4 absmax (fp32)", blocks, checked_mul(blocks, 4), 0);
  }
  acc.add(t.role, "nf4 quant_map", 16, 64, 0);  // the 16 NF4 levels, fp32
}

// AutoGPTQ QuantLinear: qweight int32 [in/32·bits, out], qzeros int32 [groups, out/32·bits], scales fp16
// [groups, out], g_idx int32 [in] (always saved). AutoAWQ GEMM: qweight int32 [in, out/32·bits], qzeros int32
// [groups, out/32·bits], scales fp16 [groups, out]. AutoRound's auto_round export (intel/auto-round,
// auto_round/export/export_to_autoround/qlinear_triton.py): GPTQ's qweight, qzeros and scales, no g_idx.
void add_packed_int(Accumulator& acc, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  const auto g = f.group_size == -1 ? l.in : static_cast<std::uint64_t>(f.group_size);
  const auto groups = ceil_div(l.in, g);
  const auto packed = f.scheme == WeightScheme::awq ? mul3(l.in, l.out / 32 * f.bits, 4)
                                                    : mul3(l.in / 32 * f.bits, l.out, 4);
  const auto count = l.count;
  acc.add(t.role, "int32 qweight", n, packed ? checked_mul(*packed, count) : std::nullopt, n);
  acc.add(t.role, "int32 qzeros", groups * l.out * count, mul3(groups, l.out / 32 * f.bits * 4, count), 0);
  acc.add(t.role, "fp16 scales", groups * l.out * count, mul3(groups, l.out * 2, count), 0);
  if (f.scheme == WeightScheme::gptq) acc.add(t.role, "int32 g_idx", l.in * count, mul3(l.in, 4, count), 0);
}

// E2M1 weights two a byte and one one-byte scale per `block` weights along the input.
void add_fp4_blocks(Accumulator& acc, const TensorShape& t, std::uint64_t block, std::string_view weights,
                    std::string_view scales) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  const auto blocks = mul3(ceil_div(l.in, block), l.out, l.count);
  acc.add(t.role, weights, n, blocks ? checked_mul(*blocks, block / 2) : std::nullopt, n);
  acc.add(t.role, scales, blocks.value_or(0), blocks, 0);
}

// OCP Microscaling Formats (MX) v1.0 §5.1, §6.3: 32 E2M1 elements (4 bits) share one E8M0 scale (8 bits), 4.25 bits
// a weight; blocks run along the input. gpt-oss stores them as U8 *_blocks (two elements a byte) and U8 *_scales.
void add_mxfp4(Accumulator& acc, const TensorShape& t) {
  add_fp4_blocks(acc, t, 32, "E2M1 (MXFP4)", "E8M0 block scales");
}

// OCP MX v1.0 §6.3 MXFP8: 32 E4M3 elements share one E8M0 scale, 8.25 bits a weight. ModelOpt's MXFP8 export
// (modelopt/torch/quantization/qtensor/mxfp8_tensor.py, MXFP8QTensor) stores weight F8_E4M3 [out, in] and
// weight_scale U8 [out, in/32].
void add_mxfp8(Accumulator& acc, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  const auto blocks = mul3(ceil_div(l.in, 32), l.out, l.count);
  acc.add(t.role, "E4M3 (MXFP8)", n, n, n);
  acc.add(t.role, "E8M0 block scales", blocks.value_or(0), blocks, 0);
}

// NVIDIA ModelOpt's NVFP4 export (NVIDIA/TensorRT-Model-Optimizer, modelopt/torch/export/quant_utils.py,
// NVFP4QTensor): weight U8 [out, in/2] (two E2M1 a byte), weight_scale F8_E4M3 [out, in/16], weight_scale_2 F32 and
// input_scale F32 scalars: 4.5 bits a weight + 8 B a matrix. compressed-tensors' nvfp4-pack-quantized stores the
// same bytes (weight_packed, weight_scale, weight_global_scale, input_global_scale).
void add_nvfp4(Accumulator& acc, const TensorShape& t) {
  add_fp4_blocks(acc, t, 16, "E2M1 (NVFP4)", "E4M3 block scales");
  const auto count = linear_shape(t).count;
  acc.add(t.role, "fp32 tensor scales", 2 * count, mul3(count, 8, 1), 0);
}

// E4M3 weights and their scales. Per channel (compressed-tensors strategy "channel", FP8_DYNAMIC): weight_scale
// [out, 1] in the model dtype (compressed_tensors/quantization/lifecycle/initialize.py). Per 128×128 block:
// DeepSeek-V3's weight_scale_inv F32 [ceil(out/128), ceil(in/128)] (deepseek-ai/DeepSeek-V3, inference/model.py,
// Linear), DeepSeek-V4's the same blocks as one-byte E8M0 (scale_fmt "ue8m0").
void add_fp8_scaled(Accumulator& acc, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  acc.add(t.role, dtype_label(DType::fp8), n, n, n);
  if (f.scheme == WeightScheme::fp8_channel) {
    acc.add(t.role, "bf16 row scales", l.out * l.count, mul3(l.out, l.count, 2), 0);
    return;
  }
  const auto blocks = mul3(ceil_div(l.in, 128), ceil_div(l.out, 128), l.count);
  if (f.scheme == WeightScheme::fp8_block_e8m0) acc.add(t.role, "E8M0 block scales", blocks.value_or(0), blocks, 0);
  else acc.add(t.role, "fp32 block scales", blocks.value_or(0), blocks ? checked_mul(*blocks, 4) : std::nullopt, 0);
}

// compressed-tensors (neuralmagic/compressed-tensors, compressors/quantized_compressors/pack_quantized.py and
// int_quantized.py). pack-quantized (w4a16, w8a16): weight_packed int32 [out, in·bits/32], weight_scale [out,
// groups] in the model dtype, weight_zero_point int32 [out·bits/32, groups] when asymmetric, weight_shape int64 [2].
// int-quantized (w8a8): weight int8 [out, in], weight_scale [out, groups], weight_zero_point int8 when asymmetric.
void add_compressed(Accumulator& acc, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  const auto groups = f.group_size == -1 ? 1 : ceil_div(l.in, static_cast<std::uint64_t>(f.group_size));
  const std::uint64_t per_int32 = 32 / f.bits;
  const bool packed = f.activation_bits == 16;
  if (packed) acc.add(t.role, "int32 weight_packed", n, mul3(l.out, ceil_div(l.in, per_int32) * 4, l.count), n);
  else acc.add(t.role, "int8", n, n, n);
  acc.add(t.role, "bf16 weight_scale", l.out * groups * l.count, mul3(l.out * groups, 2, l.count), 0);
  if (f.zero_points)
    acc.add(t.role, packed ? "int32 weight_zero_point" : "int8 weight_zero_point", l.out * groups * l.count,
            packed ? mul3(ceil_div(l.out, per_int32) * groups, 4, l.count) : mul3(l.out, groups, l.count), 0);
  if (packed) acc.add(t.role, "int64 weight_shape", 2 * l.count, mul3(l.count, 16, 1), 0);
}

// mlx.core.quantize (ml-explore/mlx, mlx/ops.cpp quantize; python/mlx/nn/layers/quantized.py QuantizedLinear):
// weight uint32 [out, in·bits/32], scales and biases [out, in/group] in the model dtype: bits + 32/group bits a
// weight (4-bit, group 64: 4.5).
void add_mlx(Accumulator& acc, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  const auto groups = l.in / static_cast<std::uint64_t>(f.group_size);
  acc.add(t.role, "uint32 packed", n, mul3(l.out, l.in * f.bits / 8, l.count), n);
  acc.add(t.role, "16-bit scales and biases", 2 * l.out * groups * l.count, mul3(l.out * groups, 4, l.count), 0);
}

// ExLlamaV2's head (turboderp-org/exllamav2, conversion/qparams.py, qparams_headoptions and QParams.total_bits):
// per group of 32 input rows, a share of the rows at a higher width (head bits 6: 15 % at 8 bits, 85 % at 6), and
// per group 4-bit scales for every column, a 16-bit q_scale_max and two 16-bit q_groups; 32 bits of q_invperm a row.
std::optional<std::uint64_t> exl2_head_bits(std::uint32_t head_bits, std::uint64_t rows, std::uint64_t columns) {
  struct Share {
    std::uint64_t bits, percent;
  };
  std::array<Share, 2> shares{};  // qparams_headoptions: {higher width, its share}, {head bits, the rest}
  switch (head_bits) {
    case 2: shares = {Share{4, 30}, Share{2, 70}}; break;
    case 3: shares = {Share{4, 15}, Share{3, 85}}; break;
    case 4: shares = {Share{6, 15}, Share{4, 85}}; break;
    case 5: shares = {Share{6, 15}, Share{5, 85}}; break;
    case 6: shares = {Share{8, 15}, Share{6, 85}}; break;
    default: shares = {Share{8, 100}, Share{8, 0}}; break;
  }
  std::uint64_t groups = 0, remaining = rows, total = 0;
  for (const Share& share : shares) {
    const std::uint64_t g = ceil_div(std::min(rows * share.percent / 100, remaining), 32);
    const std::uint64_t r = std::min(g * 32, remaining);
    groups += g;
    remaining -= r;
    total += r * columns * share.bits;
  }
  total += remaining * columns * shares[1].bits;  // rows the rounding left over
  return checked_add(total, groups * 48 + groups * columns * 4 + rows * 32);
}

// ExLlamaV2 (turboderp-org/exllamav2, conversion/optimize.py): `bits` is the average over the quantized layers,
// scales, groups and permutations included; the head is quantized apart (exl2_head_bits). ExLlamaV3
// (turboderp-org/exllamav3, modules/quant/exl3.py): the trellis holds exactly the bits per weight, plus fp16 suh
// [in] and svh [out]; the head is a trellis at `head_bits`.
void add_exllama(Accumulator& acc, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  const bool head = t.role == TensorRole::output;
  std::optional<std::uint64_t> bits;
  if (head && f.scheme == WeightScheme::exl2) bits = exl2_head_bits(f.head_bits, l.in, l.out);
  else bits = checked_mul(n, head ? f.head_bits * 100ULL : f.centibits_per_weight);
  const std::uint64_t per_byte = head && f.scheme == WeightScheme::exl2 ? 8 : 800;
  acc.add(t.role, f.scheme == WeightScheme::exl2 ? "EXL2" : "EXL3 trellis", n,
          bits ? std::optional<std::uint64_t>(ceil_div(*bits, per_byte)) : std::nullopt, n);
  if (f.scheme == WeightScheme::exl3)
    acc.add(t.role, "fp16 suh, svh", (l.in + l.out) * l.count, mul3(l.in + l.out, 2, l.count), 0);
}

void add_gguf(Accumulator& acc, const ModelSpec& spec, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  if (t.name == "vision_tower") {  // an mmproj file, usually F16
    acc.add(t.role, "F16", n, bytes_for(n, DType::fp16), n);
    return;
  }
  const auto& info = ggml_type_info(gguf_storage_type(spec, f.gguf_mix, f.gguf_type, t));
  acc.add(t.role, info.name, n, ggml_bytes(info, n), n);
}

// Whether format `f` quantizes tensor `t`: the blocks' linear layers; MLX also its embeddings, lm_head and routers
// (mlx_lm's quantize_model takes every Linear, Embedding and SwitchLinear whose rows divide into groups, not
// convolutions); ExLlama also lm_head. `named`: a recipe rule names the tensor itself, so a matrix outside the
// blocks (ModelOpt's quantized_layers may list lm_head) is stored as the rule says.
bool quantizes(const WeightFormat& f, const TensorShape& t, bool named) {
  const bool matrix = t.shape.size() >= 2 && t.name.ends_with(".weight");
  if (named && matrix && t.layer < 0 && t.role == TensorRole::output) return true;
  if (f.scheme == WeightScheme::mlx)
    return matrix && (t.layer >= 0 || t.role == TensorRole::embedding || t.role == TensorRole::output) &&
           t.name.find("conv1d") == std::string::npos && t.shape[0] % static_cast<std::uint64_t>(f.group_size) == 0;
  if (f.scheme == WeightScheme::exl2 || f.scheme == WeightScheme::exl3)
    return is_block_linear(t) || (matrix && t.role == TensorRole::output);
  return is_block_linear(t);
}

// The dtype of the tensors a quantized format leaves alone: fp16 in AutoGPTQ/AutoAWQ/AutoRound and ExLlama files,
// else the compute dtype.
DType kept_dtype(const WeightFormat& f) {
  switch (f.scheme) {
    case WeightScheme::gptq:
    case WeightScheme::awq:
    case WeightScheme::autoround:
    case WeightScheme::exl2:
    case WeightScheme::exl3: return DType::fp16;
    default: return f.dtype == DType::fp16 ? DType::fp16 : DType::bf16;
  }
}

// The bytes of one tensor stored in format `f`.
void add_tensor_bytes(Accumulator& acc, const ModelSpec& spec, const WeightFormat& f, const TensorShape& t,
                      bool named) {
  const auto n = t.elements();
  if (f.scheme == WeightScheme::plain) return acc.add(t.role, dtype_label(f.dtype), n, bytes_for(n, f.dtype), n);
  if (f.scheme == WeightScheme::gguf) return add_gguf(acc, spec, f, t);
  if (!quantizes(f, t, named)) return acc.add(t.role, dtype_label(kept_dtype(f)), n, bytes_for(n, kept_dtype(f)), n);
  switch (f.scheme) {
    case WeightScheme::mixed:
      acc.add(t.role, dtype_label(f.dtype), n, bytes_for(n, f.dtype), n);
      if (f.dtype == DType::fp8)  // compressed-tensors / ModelOpt: one fp32 weight_scale per matrix
        acc.add(t.role, "fp32 scales", linear_shape(t).count, mul3(linear_shape(t).count, 4, 1), 0);
      break;
    case WeightScheme::bnb_int8: add_bnb_int8(acc, t); break;
    case WeightScheme::bnb_nf4: add_bnb_nf4(acc, f, t); break;
    case WeightScheme::mxfp4: add_mxfp4(acc, t); break;
    case WeightScheme::mxfp8: add_mxfp8(acc, t); break;
    case WeightScheme::nvfp4: add_nvfp4(acc, t); break;
    case WeightScheme::fp8_channel:
    case WeightScheme::fp8_block:
    case WeightScheme::fp8_block_e8m0: add_fp8_scaled(acc, f, t); break;
    case WeightScheme::compressed: add_compressed(acc, f, t); break;
    case WeightScheme::mlx: add_mlx(acc, f, t); break;
    case WeightScheme::exl2:
    case WeightScheme::exl3: add_exllama(acc, f, t); break;
    case WeightScheme::gptq:
    case WeightScheme::awq:
    case WeightScheme::autoround: add_packed_int(acc, f, t); break;
    case WeightScheme::plain:
    case WeightScheme::gguf: break;  // handled above
  }
}

// The explanation's line a tensor belongs to, by its llama.cpp name.
std::string_view tensor_group(const TensorShape& t) {
  const std::string_view n = t.name;
  const auto has = [n](std::string_view part) { return n.find(part) != std::string_view::npos; };
  if (n == "vision_tower") return "vision tower";
  if (t.role == TensorRole::norm) return "norms";
  if (t.role == TensorRole::embedding) return "embeddings";
  if (t.role == TensorRole::output) return "lm_head";
  if (has("_exps") || has("ffn_latent")) return "routed experts";
  if (has("_shexp")) return "shared experts";
  if (has("ffn_gate_inp") || has("exp_probs") || has("ffn_gate_tid2eid")) return "router";
  if (has("ssm_")) return "linear attention / Mamba";
  if (t.role == TensorRole::attention) return "attention";
  if (t.role == TensorRole::mlp) return "dense MLP";
  return "other";
}

// The format tensor `t` is stored in: the format's name, or the type it keeps.
std::string tensor_format(const ModelSpec& spec, const WeightFormat& f, const TensorShape& t, bool named) {
  if (f.scheme == WeightScheme::plain) return std::string(dtype_label(f.dtype));
  if (f.scheme == WeightScheme::gguf && t.name == "vision_tower") return "F16";
  if (f.scheme == WeightScheme::gguf)
    return std::string(ggml_type_info(gguf_storage_type(spec, f.gguf_mix, f.gguf_type, t)).name);
  if (!quantizes(f, t, named)) return std::string(dtype_label(kept_dtype(f)));
  if ((f.scheme == WeightScheme::exl2 || f.scheme == WeightScheme::exl3) && t.role == TensorRole::output)
    return weight_format_name(f) + " head at " + std::to_string(f.head_bits) + " bits";
  return weight_format_name(f);
}

void tally_group(WeightBytes& out, std::string_view what, std::string format, std::uint64_t params,
                 std::uint64_t bytes) {
  for (auto& g : out.groups) {
    if (g.what == what && g.format == format) {
      g.params += params;
      g.bytes += bytes;
      return;
    }
  }
  out.groups.push_back(WeightGroup{std::string(what), std::move(format), params, bytes});
}

// GPTQ, AWQ and AutoRound: packed integers with a scale and zero per group.
Message packed_group_explanation(const WeightFormat& f) {
  const auto bits = arg::count("bits", f.bits);
  const auto name = arg::text("name", f.scheme == WeightScheme::gptq  ? "GPTQ (AutoGPTQ layout)"
                                      : f.scheme == WeightScheme::awq ? "AWQ (AutoAWQ GEMM)"
                                                                      : "AutoRound (auto_round export)");
  const auto per = f.group_size == -1
                       ? message("explain.weights.per_all_inputs", "all inputs")
                       : message("explain.weights.per_count", "{n}", {arg::count("n", static_cast<std::uint64_t>(f.group_size))});
  return f.scheme == WeightScheme::gptq
             ? message("explain.weights.source_gptq",
                       "{name}: {bits}-bit packed int32 weights, per group of {per} an fp16 scale and a packed "
                       "{bits}-bit zero, an int32 g_idx per input; embeddings, lm_head and norms fp16",
                       {name, bits, arg::message("per", per)})
             : message("explain.weights.source_packed",
                       "{name}: {bits}-bit packed int32 weights, per group of {per} an fp16 scale and a packed "
                       "{bits}-bit zero; embeddings, lm_head and norms fp16",
                       {name, bits, arg::message("per", per)});
}

// compressed-tensors' integer formats.
Message compressed_explanation(const WeightFormat& f) {
  const auto bits = arg::count("bits", f.bits);
  const auto packing = f.activation_bits == 16 ? message("explain.weights.packed_int32", "weights packed in int32")
                                               : message("explain.weights.unpacked", "weights");
  const auto per = f.group_size == -1
                       ? message("explain.weights.per_row", "output row")
                       : message("explain.weights.per_group", "group of {n}",
                                 {arg::count("n", static_cast<std::uint64_t>(f.group_size))});
  return f.zero_points
             ? message("explain.weights.source_compressed_zero",
                       "compressed-tensors {format}: {bits}-bit integer linear {packing}, a bf16 scale per {per} and "
                       "a zero point; embeddings, lm_head, routers and norms 16-bit",
                       {arg::text("format", weight_format_name(f)), bits, arg::message("packing", packing),
                        arg::message("per", per)})
             : message("explain.weights.source_compressed",
                       "compressed-tensors {format}: {bits}-bit integer linear {packing}, a bf16 scale per {per}; "
                       "embeddings, lm_head, routers and norms 16-bit",
                       {arg::text("format", weight_format_name(f)), bits, arg::message("packing", packing),
                        arg::message("per", per)});
}

// What is stored how, and the source: one or two sentences for the weights line.
Message weights_explanation(const ModelSpec& spec, const WeightFormat& f) {
  const auto dtype = arg::text("dtype", dtype_label(f.dtype));
  const auto bits = arg::count("bits", f.bits);
  if (spec.is_bare()) return message("explain.weights.source_bare", "every parameter in {dtype} (bare parameter count)", {dtype});
  switch (f.scheme) {
    case WeightScheme::plain: return message("explain.weights.source_plain", "every tensor in {dtype}", {dtype});
    case WeightScheme::mixed:
      return f.dtype == DType::fp8
                 ? message("explain.weights.source_mixed_fp8",
                           "linear layers in {dtype} with one fp32 scale each; embeddings, lm_head and norms stay 16-bit", {dtype})
                 : message("explain.weights.source_mixed",
                           "linear layers in {dtype}, no scale overhead counted; embeddings, lm_head and norms stay 16-bit",
                           {dtype});
    case WeightScheme::bnb_int8:
      return message("explain.weights.source_bnb_int8",
                     "bitsandbytes LLM.int8: int8 linear layers with an fp32 scale per output row; embeddings, lm_head and "
                     "norms 16-bit");
    case WeightScheme::bnb_nf4:
      return f.double_quant
                 ? message("explain.weights.source_nf4_dq",
                           "bitsandbytes NF4 with double quantization: 4 bits + 8/64 + 32/(64·256) = 4.127 bits per "
                           "linear weight (QLoRA §3); embeddings, lm_head and norms 16-bit")
                 : message("explain.weights.source_nf4",
                           "bitsandbytes NF4: 4 bits + one fp32 absmax per 64 weights = 4.5 bits per linear "
                           "weight (QLoRA §3); embeddings, lm_head and norms 16-bit");
    case WeightScheme::gptq:
    case WeightScheme::awq:
    case WeightScheme::autoround: return packed_group_explanation(f);
    case WeightScheme::nvfp4:
      return message("explain.weights.source_nvfp4",
                     "NVFP4 (NVIDIA ModelOpt): E2M1 linear weights, one FP8 E4M3 scale per block of 16 = 4.5 bits per "
                     "weight, and an fp32 weight_scale_2 and input_scale per matrix; embeddings, lm_head, routers and "
                     "norms 16-bit");
    case WeightScheme::fp8_channel:
      return message("explain.weights.source_fp8_channel",
                     "fp8 E4M3 linear layers with one bf16 scale per output row (compressed-tensors, channel); "
                     "embeddings, lm_head, routers and norms 16-bit");
    case WeightScheme::fp8_block:
    case WeightScheme::fp8_block_e8m0:
      return message("explain.weights.source_fp8_block",
                     "fp8 E4M3 linear layers with one {scale} scale per 128×128 block (DeepSeek weight_scale_inv); "
                     "embeddings, lm_head, routers and norms 16-bit",
                     {arg::text("scale", f.scheme == WeightScheme::fp8_block ? "fp32" : "E8M0")});
    case WeightScheme::compressed: return compressed_explanation(f);
    case WeightScheme::mlx: {
      const std::uint32_t centibits = f.bits * 100 + 3200 / static_cast<std::uint32_t>(f.group_size);
      return message("explain.weights.source_mlx",
                     "MLX {bits}-bit: weights packed in uint32, a 16-bit scale and bias per group of {group} = {per_weight} "
                     "bits per weight, embeddings and lm_head included; norms 16-bit",
                     {bits, arg::count("group", static_cast<std::uint64_t>(f.group_size)),
                      arg::fixed("per_weight", centibits / 100.0, centibits % 10 ? 2 : 1)});
    }
    case WeightScheme::exl2:
    case WeightScheme::exl3:
      return message("explain.weights.source_exl",
                     "{name}: linear layers at {per_weight} bits per weight, lm_head at {head_bits} bits; embeddings and "
                     "norms fp16",
                     {arg::text("name", f.scheme == WeightScheme::exl2 ? "EXL2 (ExLlamaV2)" : "EXL3 (ExLlamaV3)"),
                      arg::fixed("per_weight", f.centibits_per_weight / 100.0, f.centibits_per_weight % 10 ? 2 : 1),
                      arg::count("head_bits", f.head_bits)});
    case WeightScheme::mxfp4:
      return message("explain.weights.source_mxfp4",
                     "MXFP4 (OCP Microscaling Formats v1.0): E2M1 linear weights, one E8M0 scale per block of 32 = 4.25 "
                     "bits per weight; embeddings, lm_head, routers and norms 16-bit");
    case WeightScheme::mxfp8:
      return message("explain.weights.source_mxfp8",
                     "MXFP8 (OCP Microscaling Formats v1.0): E4M3 linear weights, one E8M0 scale per block of 32 = 8.25 "
                     "bits per weight; embeddings, lm_head, routers and norms 16-bit");
    case WeightScheme::gguf:
      return f.gguf_mix == GgufMix::pure
                 ? message("explain.weights.source_gguf_pure",
                           "GGUF with every matrix in {type} (llama-quantize --pure); 1-D tensors F32",
                           {arg::text("type", ggml_type_info(f.gguf_type).name)})
                 : message("explain.weights.source_gguf",
                           "GGUF {format}: per-tensor types as llama.cpp's llama_tensor_get_type picks them; 1-D tensors "
                           "F32; tensor data only (metadata and vocabulary add a few MB)",
                           {arg::text("format", weight_format_name(f))});
  }
  return {};
}

// A rule's format refused: the English names the module; the id and args stay the refusal's own, the module added.
Message in_module(const Message& refused, const std::string& module) {
  Message m = refused;
  m.text = "module " + module + ": " + refused.text;
  m.args.push_back(arg::text("module", module));
  return m;
}

// The formats of the checkpoint's recipe rules, one per rule; none unless `f` is the checkpoint's own format.
Result<std::vector<WeightFormat>> recipe_formats(const ModelSpec& spec, const WeightFormat& f) {
  std::vector<WeightFormat> out;
  if (spec.quantization_rules.empty()) return out;
  const auto own = parse_weight_format(spec.quantization);
  if (!own || weight_format_name(own.value()) != weight_format_name(f)) return out;
  for (const auto& rule : spec.quantization_rules) {
    auto parsed = parse_weight_format(rule.format);
    if (!parsed) return make_error("quantization", in_module(parsed.error().message, rule.module));
    out.push_back(parsed.value());
  }
  return out;
}

// "the checkpoint keeps lm_head, model.embed_tokens in bf16; the rest: …": the recipe's rules that decided a tensor
// (`used`), grouped by format, before what `rest` says; a rule an earlier one shadows everywhere (V4's FP4 experts
// under an NVFP4 map) is not named.
Message recipe_explanation(const ModelSpec& spec, const std::vector<bool>& used, const Message& rest) {
  std::vector<std::string> formats;
  for (std::size_t i = 0; i < spec.quantization_rules.size(); ++i) {
    const auto& format = spec.quantization_rules[i].format;
    if (used[i] && std::find(formats.begin(), formats.end(), format) == formats.end()) formats.push_back(format);
  }
  std::optional<Message> kept;
  for (const auto& format : formats) {
    std::size_t listed = 0, more = 0;
    std::string modules;
    for (std::size_t i = 0; i < spec.quantization_rules.size(); ++i) {
      const auto& rule = spec.quantization_rules[i];
      if (rule.format != format || !used[i]) continue;
      if (listed == 6) {
        ++more;
        continue;
      }
      modules += (listed++ ? ", " : "") + rule.module;
    }
    const Message keeps = more ? message("explain.weights.keeps_more", "the checkpoint keeps {modules} and {more} more in {format}",
                                         {arg::text("modules", modules), arg::count("more", more), arg::text("format", format)})
                               : message("explain.weights.keeps", "the checkpoint keeps {modules} in {format}",
                                         {arg::text("modules", modules), arg::text("format", format)});
    kept = kept ? message("explain.weights.keeps_also", "{before}; {keeps}", {arg::message("before", *kept), arg::message("keeps", keeps)})
                : keeps;
  }
  if (!kept) return rest;
  return message("explain.weights.source_recipe", "{kept}; the rest: {rest}", {arg::message("kept", *kept), arg::message("rest", rest)});
}

// "…; the files also hold 1 multi-token-prediction layer (bf16), …": what the weights line leaves out, after `base`.
Message mtp_explanation(const ModelSpec& spec, const WeightBytes& w, const Message& base) {
  std::string formats;
  for (const auto& g : w.mtp_groups)
    if (formats.find(g.format) == std::string::npos) formats += (formats.empty() ? "" : ", ") + g.format;
  const auto n = spec.mtp.layers;
  if (n == 1)
    return message("explain.weights.source_mtp_one",
                   "{base}; the files also hold 1 multi-token-prediction layer ({formats}), not counted here: an engine "
                   "loads it only to draft tokens with it (MTP speculative decoding)",
                   {arg::message("base", base), arg::text("formats", formats)});
  return message("explain.weights.source_mtp",
                 "{base}; the files also hold {n} multi-token-prediction layers ({formats}), not counted here: an engine "
                 "loads them only to draft tokens with them (MTP speculative decoding)",
                 {arg::message("base", base), arg::count("n", n), arg::text("formats", formats)});
}

}  // namespace

std::uint32_t native_compute_capability(const WeightFormat& f) noexcept {
  switch (f.scheme) {
    // FP8 E4M3 tensor cores: Ada Lovelace (sm_89) and Hopper (sm_90) and newer (NVIDIA Ada GPU Architecture
    // whitepaper, "Fourth-Generation Tensor Cores"; CUTLASS builds its FP8 GEMMs for sm_89 and up).
    case WeightScheme::fp8_channel:
    case WeightScheme::fp8_block:
    case WeightScheme::fp8_block_e8m0: return 89;
    case WeightScheme::mixed: return f.dtype == DType::fp8 ? 89 : 0;
    // FP4 and FP8 with block scales (NVFP4, MXFP4, MXFP8): Blackwell's fifth-generation tensor cores, sm_100 (B200)
    // and sm_120 (RTX 50) (NVIDIA Blackwell architecture technical brief; CUTLASS's block-scaled GEMMs target
    // sm_100a/sm_120a).
    case WeightScheme::nvfp4:
    case WeightScheme::mxfp4:
    case WeightScheme::mxfp8: return 100;
    // int8 × int8 tensor cores: Turing (sm_75) and newer (NVIDIA Turing GPU Architecture whitepaper).
    case WeightScheme::compressed: return f.activation_bits == 8 ? 75 : 0;
    default: return 0;
  }
}

Result<WeightBytes> weights_bytes(const ModelSpec& spec, const WeightFormat& f) {
  WeightBytes out;
  if (spec.is_bare()) {
    auto bare = bare_weights_bytes(spec, f);
    if (!bare) return bare.error();
    out = std::move(bare).value();
    out.explanation = weights_explanation(spec, f);
  } else {
    if (auto error = check_format(f)) return *error;
    auto tensors = enumerate_tensors(spec);
    if (!tensors) return tensors.error();
    auto recipe = recipe_formats(spec, f);
    if (!recipe) return recipe.error();
    std::vector<bool> used(recipe.value().size(), false);
    // Tensor `t` into `into`, in the format the first recipe rule covering it names (else `f`); its group in
    // `groups` is `what` or, when empty, its kind.
    const auto place = [&](Accumulator& acc, WeightBytes& into, const TensorShape& t, std::string_view what) {
      const WeightFormat* format = &f;
      bool named = false;
      for (std::size_t i = 0; i < recipe.value().size(); ++i) {
        if (!rule_covers(spec.quantization_rules[i], t.name, t.layer)) continue;
        format = &recipe.value()[i];
        named = !spec.quantization_rules[i].tensors.empty();
        used[i] = true;
        break;
      }
      const auto before = into.total;
      add_tensor_bytes(acc, spec, *format, t, named);
      tally_group(into, what.empty() ? tensor_group(t) : what, tensor_format(spec, *format, t, named), t.elements(),
                  into.total - before);
      return into.total - before;
    };
    Accumulator acc(out);
    for (const auto& t : tensors.value()) {
      const auto bytes = place(acc, out, t, {});
      if (t.name.find("_exps.") != std::string::npos) {
        out.routed_expert_bytes += bytes;
        out.routed_expert_params += t.elements();
      }
    }
    WeightBytes mtp;
    Accumulator mtp_acc(mtp);
    for (const auto& t : mtp_tensors(spec, tensors.value())) place(mtp_acc, mtp, t, "MTP layers");
    if (acc.overflow() || mtp_acc.overflow())
      return make_error("weights", message("weights.overflow", "the tensor sizes overflow 64 bits; check the model sizes"));
    finish_tally(out);
    out.mtp_bytes = mtp.total;
    out.mtp_params = mtp.params;
    out.mtp_groups = std::move(mtp.groups);
    out.explanation = recipe.value().empty() ? weights_explanation(spec, f)
                                             : recipe_explanation(spec, used, weights_explanation(spec, f));
  }
  if (out.mtp_bytes) out.explanation = mtp_explanation(spec, out, out.explanation);
  return out;
}

Result<std::uint64_t> weights_bytes_of(const ModelSpec& spec, const WeightFormat& f,
                                       bool (*keep)(const TensorShape& tensor)) {
  if (spec.is_bare()) return std::uint64_t{0};
  if (auto error = check_format(f)) return *error;
  auto tensors = enumerate_tensors(spec);
  if (!tensors) return tensors.error();
  auto recipe = recipe_formats(spec, f);
  if (!recipe) return recipe.error();
  WeightBytes out;
  Accumulator acc(out);
  for (const auto& t : tensors.value()) {
    if (!keep(t)) continue;
    const WeightFormat* format = &f;
    bool named = false;
    for (std::size_t i = 0; i < recipe.value().size(); ++i) {  // the first recipe rule covering it, as weights_bytes
      if (!rule_covers(spec.quantization_rules[i], t.name, t.layer)) continue;
      format = &recipe.value()[i];
      named = !spec.quantization_rules[i].tensors.empty();
      break;
    }
    add_tensor_bytes(acc, spec, *format, t, named);
  }
  if (acc.overflow())
    return make_error("weights", message("weights.overflow", "the tensor sizes overflow 64 bits; check the model sizes"));
  return out.total;
}

namespace {

// A run of at most 7 decimal digits, or nothing.
std::optional<std::uint32_t> parse_digits(std::string_view text) {
  if (text.empty() || text.size() > 7) return std::nullopt;
  std::uint32_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
  }
  return value;
}

// `rest` starts with `prefix`: the text after it.
std::optional<std::string_view> after(std::string_view rest, std::string_view prefix) {
  if (!rest.starts_with(prefix)) return std::nullopt;
  return rest.substr(prefix.size());
}

// "" (the default), "-<n>g" or, where one group per output row is allowed, "-nogroup" (-1); `rest` keeps what follows.
std::optional<std::int64_t> parse_group(std::string_view& rest, std::int64_t default_group, bool nogroup_allowed) {
  if (nogroup_allowed && rest.starts_with("-nogroup")) {
    rest.remove_prefix(8);
    return -1;
  }
  if (!rest.starts_with('-')) return default_group;
  const auto g_at = rest.find('g');
  const auto digits = g_at == std::string_view::npos ? std::nullopt : parse_digits(rest.substr(1, g_at - 1));
  if (!digits) return default_group;  // not a group: left for the caller's next suffix
  if (*digits == 0) return std::nullopt;
  rest.remove_prefix(g_at + 1);
  return static_cast<std::int64_t>(*digits);
}

std::string group_suffix(std::int64_t group_size) {
  return group_size == -1 ? std::string("-nogroup") : "-" + std::to_string(group_size) + "g";
}

// gptq / awq / autoround alone (4-bit, group 128, the converters' defaults) or "<method>-<bits>bit[-<n>g | -nogroup]".
std::optional<WeightFormat> parse_packed_int(std::string_view name) {
  struct Method {
    std::string_view prefix;
    WeightScheme scheme;
  };
  for (const Method m : {Method{"gptq", WeightScheme::gptq}, Method{"awq", WeightScheme::awq},
                         Method{"autoround", WeightScheme::autoround}}) {
    auto rest = after(name, m.prefix);
    if (!rest) continue;
    WeightFormat f;
    f.scheme = m.scheme;
    if (rest->empty()) return f;
    if (rest->size() < 5 || (*rest)[0] != '-' || rest->substr(2, 3) != "bit") return std::nullopt;
    const char b = (*rest)[1];
    if (b != '2' && b != '3' && b != '4' && b != '8') return std::nullopt;
    f.bits = static_cast<std::uint32_t>(b - '0');
    rest->remove_prefix(5);
    const auto group = parse_group(*rest, 128, true);
    if (!group || !rest->empty()) return std::nullopt;
    f.group_size = *group;
    return f;
  }
  return std::nullopt;
}

// compressed-tensors' preset schemes (compressed_tensors/quantization/quant_scheme.py): W4A16 group 128, W8A16 and
// W8A8 one scale per output row; "w4a16[-<n>g | -nogroup][-asym]".
std::optional<WeightFormat> parse_compressed(std::string_view name) {
  WeightFormat f;
  f.scheme = WeightScheme::compressed;
  std::string_view rest;
  if (auto r = after(name, "w4a16")) {
    rest = *r;
  } else if (auto r8 = after(name, "w8a16")) {
    rest = *r8;
    f.bits = 8;
    f.group_size = -1;
  } else if (auto r88 = after(name, "w8a8")) {
    rest = *r88;
    f.bits = 8;
    f.group_size = -1;
    f.activation_bits = 8;
  } else {
    return std::nullopt;
  }
  const auto group = parse_group(rest, f.group_size, true);
  if (!group) return std::nullopt;
  f.group_size = *group;
  if (rest == "-asym") {
    f.zero_points = true;
    rest = {};
  }
  if (!rest.empty()) return std::nullopt;
  return f;
}

// "mlx-<bits>bit[-<n>g]": mlx.core.quantize's bits 2, 3, 4, 5, 6, 8 and group sizes 32, 64 (default), 128.
std::optional<WeightFormat> parse_mlx(std::string_view name) {
  auto rest = after(name, "mlx-");
  if (!rest || rest->size() < 4 || rest->substr(1, 3) != "bit") return std::nullopt;
  const char b = (*rest)[0];
  if (b < '2' || b > '8' || b == '7') return std::nullopt;
  WeightFormat f;
  f.scheme = WeightScheme::mlx;
  f.bits = static_cast<std::uint32_t>(b - '0');
  rest->remove_prefix(4);
  const auto group = parse_group(*rest, 64, false);
  if (!group || !rest->empty() || (*group != 32 && *group != 64 && *group != 128)) return std::nullopt;
  f.group_size = *group;
  return f;
}

// "exl2-<b>[.<bb>]bpw[-h<head bits>]", the same for exl3: ExLlamaV2's and V3's convert.py take the target bits per
// weight (-b) and the head's bits (-hb, default 6); their model repositories label branches "4.0bpw", "6.5bpw_h8".
std::optional<WeightFormat> parse_exllama(std::string_view name) {
  WeightFormat f;
  auto rest = after(name, "exl2-");
  f.scheme = WeightScheme::exl2;
  if (!rest) {
    rest = after(name, "exl3-");
    f.scheme = WeightScheme::exl3;
  }
  if (!rest) return std::nullopt;
  const auto bpw_end = rest->find("bpw");
  if (bpw_end == std::string_view::npos) return std::nullopt;
  const std::string_view number = rest->substr(0, bpw_end);
  const auto dot = number.find('.');
  const auto whole = parse_digits(number.substr(0, dot));
  std::string_view fraction = dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  if (!whole || fraction.size() > 2 || (dot != std::string_view::npos && fraction.empty())) return std::nullopt;
  const auto hundredths = fraction.empty() ? std::optional<std::uint32_t>(0) : parse_digits(fraction);
  if (!hundredths) return std::nullopt;
  f.centibits_per_weight = *whole * 100 + *hundredths * (fraction.size() == 1 ? 10 : 1);
  if (f.centibits_per_weight < 100 || f.centibits_per_weight > 1600) return std::nullopt;
  rest->remove_prefix(bpw_end + 3);
  if (auto head = after(*rest, "-h")) {
    const auto bits = parse_digits(*head);
    // ExLlamaV2's qparams_headoptions: 2, 3, 4, 5, 6, 8; ExLlamaV3's trellis: 2 to 8.
    if (!bits || *bits < 2 || *bits > 8 || (f.scheme == WeightScheme::exl2 && *bits == 7)) return std::nullopt;
    f.head_bits = *bits;
  } else if (!rest->empty()) {
    return std::nullopt;
  }
  return f;
}

std::optional<WeightFormat> parse_named_scheme(std::string_view name) {
  static constexpr NamedValue<WeightScheme> kNames[] = {
      {"mxfp4", WeightScheme::mxfp4},
      {"mxfp8", WeightScheme::mxfp8},
      {"nvfp4", WeightScheme::nvfp4},
      {"fp8-channel", WeightScheme::fp8_channel},
      {"fp8-block", WeightScheme::fp8_block},
      {"fp8-block-e8m0", WeightScheme::fp8_block_e8m0},
      {"bnb-int8", WeightScheme::bnb_int8},
      {"llm-int8", WeightScheme::bnb_int8},
  };
  for (const auto& named : kNames) {
    if (named.name != name) continue;
    WeightFormat f;
    f.scheme = named.value;
    if (f.scheme == WeightScheme::fp8_channel || f.scheme == WeightScheme::fp8_block ||
        f.scheme == WeightScheme::fp8_block_e8m0 || f.scheme == WeightScheme::mxfp8)
      f.dtype = DType::fp8;
    return f;
  }
  return std::nullopt;
}

std::optional<WeightFormat> parse_gguf(std::string_view name) {
  WeightFormat f;
  f.scheme = WeightScheme::gguf;
  if (auto mix = gguf_mix_by_name(name.substr(name.starts_with("gguf-") ? 5 : 0))) {
    f.gguf_mix = *mix;
    return f;
  }
  if (!name.starts_with("gguf-")) return std::nullopt;
  const GgmlTypeInfo* info = ggml_type_by_name(name.substr(5));
  if (!info) return std::nullopt;
  f.gguf_mix = GgufMix::pure;
  f.gguf_type = info->type;
  return f;
}

}  // namespace

Result<WeightFormat> parse_weight_format(std::string_view raw) {
  std::string name = lower_ascii(raw);
  // "4bit" and "8-bit" as people say it: integer weights of that width, the catalog's int4 and int8.
  if (name == "4bit" || name == "4-bit") name = "int4";
  if (name == "8bit" || name == "8-bit") name = "int8";
  if (auto d = parse_dtype(name)) {
    WeightFormat f;
    f.dtype = *d;
    f.scheme = (*d == DType::fp32 || *d == DType::fp16 || *d == DType::bf16) ? WeightScheme::plain
                                                                             : WeightScheme::mixed;
    return f;
  }
  if (name == "nf4" || name == "bnb-nf4" || name == "nf4-dq") {
    WeightFormat f;
    f.scheme = WeightScheme::bnb_nf4;
    return f;
  }
  if (name == "nf4-no-dq" || name == "bnb-nf4-no-dq") {
    WeightFormat f;
    f.scheme = WeightScheme::bnb_nf4;
    f.double_quant = false;
    return f;
  }
  for (auto parse : {parse_named_scheme, parse_gguf, parse_packed_int, parse_compressed, parse_mlx, parse_exllama})
    if (auto f = parse(name)) return *f;
  return make_error("weights", message("weights.unknown", "unknown weight format \"{given}\"; use fp32, fp16, bf16, fp8, int8, int4, nf4, nf4-no-dq, bnb-int8, fp8-channel, "
                                   "fp8-block, fp8-block-e8m0, mxfp4, mxfp8, nvfp4, gptq or awq (4-bit, group 128), "
                                   "gptq-4bit-128g (bits 2/3/4/8, -32g/-64g/-128g/-nogroup), awq-4bit-128g, "
                                   "autoround-4bit-128g, w4a16, w4a16-32g, w4a16-asym, w8a16, w8a8, mlx-4bit (bits "
                                   "2/3/4/5/6/8, -32g/-64g/-128g), exl2-4.0bpw, exl3-4.0bpw (-h8: the head's bits), a "
                                   "GGUF type such as q4_k_m, q8_0, q3_k_s, or gguf-<ggml type> (e.g. gguf-q4_k)",
                                   {arg::text("given", raw)}));
}

std::string weight_format_name(const WeightFormat& f) {
  switch (f.scheme) {
    case WeightScheme::plain:
    case WeightScheme::mixed: return std::string(dtype_label(f.dtype));
    case WeightScheme::bnb_nf4: return f.double_quant ? "nf4" : "nf4-no-dq";
    case WeightScheme::bnb_int8: return "bnb-int8";
    case WeightScheme::mxfp4: return "mxfp4";
    case WeightScheme::mxfp8: return "mxfp8";
    case WeightScheme::nvfp4: return "nvfp4";
    case WeightScheme::fp8_channel: return "fp8-channel";
    case WeightScheme::fp8_block: return "fp8-block";
    case WeightScheme::fp8_block_e8m0: return "fp8-block-e8m0";
    case WeightScheme::gptq:
    case WeightScheme::awq:
    case WeightScheme::autoround: {
      const char* method = f.scheme == WeightScheme::gptq  ? "gptq-"
                           : f.scheme == WeightScheme::awq ? "awq-"
                                                           : "autoround-";
      return method + std::to_string(f.bits) + "bit" + group_suffix(f.group_size);
    }
    case WeightScheme::compressed: {
      std::string out = "w" + std::to_string(f.bits) + "a" + std::to_string(f.activation_bits);
      const std::int64_t preset_group = f.bits == 4 ? 128 : -1;
      if (f.group_size != preset_group) out += group_suffix(f.group_size);
      return f.zero_points ? out + "-asym" : out;
    }
    case WeightScheme::mlx:
      return "mlx-" + std::to_string(f.bits) + "bit" + (f.group_size == 64 ? "" : group_suffix(f.group_size));
    case WeightScheme::exl2:
    case WeightScheme::exl3:
      return (f.scheme == WeightScheme::exl2 ? "exl2-" : "exl3-") + bits_text(f.centibits_per_weight) + "bpw" +
             (f.head_bits == 6 ? "" : "-h" + std::to_string(f.head_bits));
    case WeightScheme::gguf:
      if (f.gguf_mix == GgufMix::pure) return "gguf-" + lower_ascii(ggml_type_info(f.gguf_type).name);
      return std::string(gguf_mix_name(f.gguf_mix));
  }
  return "";
}

std::vector<std::string> weight_format_examples() {
  std::vector<std::string> out{"fp32", "fp16", "bf16", "fp8", "int8", "int4", "nf4", "nf4-no-dq", "bnb-int8",
                               "gptq-4bit-128g", "gptq-4bit-32g", "gptq-3bit-128g", "gptq-8bit-128g",
                               "gptq-4bit-nogroup", "awq-4bit-128g", "autoround-4bit-128g", "fp8-channel",
                               "fp8-block", "fp8-block-e8m0", "mxfp4", "mxfp8", "nvfp4", "w4a16", "w4a16-32g", "w8a16",
                               "w8a8", "mlx-4bit", "mlx-6bit", "mlx-8bit", "exl2-4.0bpw", "exl3-4.0bpw"};
  // llama.cpp's bf16 mix has the plain format's name (one spelling, one format): listed once.
  for (const GgufMix mix : gguf_mixes())
    if (std::find(out.begin(), out.end(), gguf_mix_name(mix)) == out.end()) out.emplace_back(gguf_mix_name(mix));
  return out;
}

}  // namespace vramfit
