#pragma once
// Weight memory for the formats people actually load: plain dtypes, bitsandbytes NF4/LLM.int8, GPTQ and
// AWQ with their group scales and packed zeros, and GGUF files with llama.cpp's per-tensor type choices.
#include <cstdint>      // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "formats/dtype.hpp"
#include "formats/ggml_types.hpp"
#include "formats/gguf_mix.hpp"  // GgufMix
#include "model/model_spec.hpp"
#include "model/tensors.hpp"  // TensorRole, TensorShape, enumerate_tensors
#include "util/result.hpp"

namespace vramfit {

// Classifies GGUF names ("blk.3.ffn_down.weight") and Hugging Face names ("model.layers.3.mlp.down_proj.weight").
TensorRole role_of_tensor(std::string_view name) noexcept;

enum class WeightScheme {
  plain,        // every tensor in `dtype` (fp32, fp16, bf16)
  mixed,        // linear layers in `dtype` (fp8 e4m3 with a per-tensor fp32 scale, int8, int4); rest 16-bit
  bnb_nf4,      // bitsandbytes 4-bit NF4, block 64 absmax, optional double quantization
  bnb_int8,     // bitsandbytes LLM.int8: int8 weights and an fp32 scale per output row
  gptq,         // AutoGPTQ checkpoint: qweight, qzeros, scales, g_idx
  awq,          // AutoAWQ GEMM checkpoint: qweight, qzeros, scales
  gguf,         // a llama.cpp file type (mix) or one ggml type for every matrix
  mxfp4,        // OCP MXFP4: linear layers in E2M1, one E8M0 scale per 32 weights; rest 16-bit
  nvfp4,        // NVIDIA NVFP4: E2M1, one FP8 E4M3 scale per 16 weights, fp32 weight_scale_2 and input_scale
  fp8_channel,  // E4M3 linear layers, one scale per output row (compressed-tensors strategy "channel")
  fp8_block,    // E4M3 linear layers, one fp32 scale per 128×128 block (DeepSeek-V3 weight_scale_inv)
  fp8_block_e8m0,  // the same blocks with one-byte E8M0 scales (DeepSeek-V4 scale_fmt "ue8m0")
  compressed,   // compressed-tensors integer weights: w4a16 / w8a16 pack-quantized, w8a8 int-quantized
  mlx,          // MLX affine quantization: packed uint32 weights, a scale and a bias per group
  exl2,         // ExLlamaV2 at a given bits per weight, the head at `head_bits`
  exl3,         // ExLlamaV3 (QTIP trellis) at a given bits per weight, the head at `head_bits`
  autoround,    // Intel AutoRound's auto_round export: GPTQ's qweight, qzeros and scales without g_idx
  mxfp8,        // OCP MXFP8: linear layers in E4M3, one E8M0 scale per 32 weights; rest 16-bit
};

struct WeightFormat {
  WeightScheme scheme = WeightScheme::plain;
  DType dtype = DType::bf16;      // plain: every tensor; mixed: the linear layers; else the unquantized tensors' dtype
  std::uint32_t bits = 4;         // gptq, awq, autoround: 2, 3, 4 or 8; compressed: 4 or 8; mlx: 2, 3, 4, 5, 6 or 8
  std::int64_t group_size = 128;  // gptq, awq, autoround, compressed, mlx: weights per scale; -1: one per output row
  bool double_quant = true;       // bnb_nf4: quantize the absmax constants too (QLoRA §3)
  bool zero_points = false;       // compressed: asymmetric, with a packed weight_zero_point
  std::uint32_t activation_bits = 16;    // compressed: 16 (w4a16, w8a16, weights only) or 8 (w8a8)
  std::uint32_t centibits_per_weight = 400;  // exl2, exl3: bits per weight × 100 (4.65 bpw: 465)
  std::uint32_t head_bits = 6;    // exl2, exl3: lm_head's bits (both converters' default)
  GgufMix gguf_mix = GgufMix::q4_k_m;
  GgmlType gguf_type = GgmlType::q4_k;  // gguf with GgufMix::pure: the type of every matrix (`--pure`)
};

// "bf16", "fp8", "fp8-channel", "fp8-block", "fp8-block-e8m0", "int4", "nf4", "nf4-no-dq", "bnb-int8", "mxfp4",
// "mxfp8", "nvfp4", "gptq" (= "gptq-4bit-128g"), "gptq-3bit-nogroup", "awq" (= "awq-4bit-128g"), "autoround-4bit-128g"
// (GPTQ's layout), "w4a16", "w4a16-32g", "w4a16-asym", "w8a16", "w8a8", "mlx-4bit", "mlx-6bit-32g", "exl2-4.0bpw",
// "exl2-4.65bpw-h8", "exl3-3.0bpw", "q4_k_m", "Q8_0", "gguf-iq2_xxs" (one ggml type for every matrix).
// Case-insensitive; weight_format_name gives each format's one spelling back.
Result<WeightFormat> parse_weight_format(std::string_view name);
std::string weight_format_name(const WeightFormat& format);
// Names for help texts and pickers.
std::vector<std::string> weight_format_examples();

struct StorageTally {  // how much is stored in one storage type ("Q4_K", "int32 qweight", "fp16")
  std::string type;
  std::uint64_t tensors = 0;
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;
};

// One kind of tensor stored in one format ("routed experts" in "mxfp4", "embeddings" in "bf16"): the lines of the
// explanation every weight figure opens.
struct WeightGroup {
  std::string what;    // embeddings, attention, routed experts, shared experts, dense MLP, router, norms,
                       // linear attention / Mamba, lm_head, vision tower, other
  std::string format;  // the format's name, or the type a tensor the format leaves alone keeps ("bf16", "Q6_K")
  std::uint64_t params = 0;
  std::uint64_t bytes = 0;  // scales, zero points and other metadata of the group's tensors included
};

struct WeightBytes {
  std::uint64_t total = 0;
  std::uint64_t params = 0;  // unpacked parameter count
  // Per role; they add up to total.
  std::uint64_t embedding = 0;
  std::uint64_t output = 0;
  std::uint64_t attention = 0;
  std::uint64_t mlp = 0;
  std::uint64_t norms = 0;
  std::uint64_t other = 0;
  // The routed experts' share, for the bytes a token reads (its top-k experts only).
  std::uint64_t routed_expert_bytes = 0;
  std::uint64_t routed_expert_params = 0;
  std::vector<StorageTally> storage;  // the quantization mix, largest first
  std::vector<WeightGroup> groups;    // in file order; they add up to total and params (empty for a model file)
  Message explanation;                // one or two sentences: what is stored how, and the source
  // The checkpoint files' multi-token-prediction layers (ModelSpec::mtp), apart from everything above: an engine
  // loads them only to draft tokens with them (MTP speculative decoding). total + mtp_bytes is what the files hold.
  std::uint64_t mtp_bytes = 0;
  std::uint64_t mtp_params = 0;
  std::vector<WeightGroup> mtp_groups;  // one per format
  std::uint64_t file_bytes() const noexcept { return total + mtp_bytes; }
};

// Weight memory of `spec` stored as `format`, per tensor; while `format` is the checkpoint's own
// (spec.quantization), its recipe's rules pick the format of the tensors they cover. GGUF sizes are the tensor data of the file
// (metadata, vocabulary and 32-byte alignment padding excluded).
Result<WeightBytes> weights_bytes(const ModelSpec& spec, const WeightFormat& format);
// The bytes of the tensors `keep` selects, each stored as weights_bytes stores it (MTP layers left out); 0 for a
// bare count.
Result<std::uint64_t> weights_bytes_of(const ModelSpec& spec, const WeightFormat& format,
                                       bool (*keep)(const TensorShape& tensor));

// The NVIDIA compute capability (major · 10 + minor) whose tensor cores multiply in `format` natively: 89 for FP8
// (Ada; Hopper is 90), 100 for FP4 (Blackwell), 75 for W8A8's int8 (Turing); 0 when any GPU computes it (16-bit
// weights, or weights dequantized to 16 bits before the multiply). Older GPUs run the others emulated or dequantized.
std::uint32_t native_compute_capability(const WeightFormat& format) noexcept;

}  // namespace vramfit
