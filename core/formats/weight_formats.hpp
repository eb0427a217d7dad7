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
  plain,     // every tensor in `dtype` (fp32, fp16, bf16)
  mixed,     // linear layers in `dtype` (fp8 e4m3 with a per-tensor fp32 scale, int8, int4); rest 16-bit
  bnb_nf4,   // bitsandbytes 4-bit NF4, block 64 absmax, optional double quantization
  bnb_int8,  // bitsandbytes LLM.int8: int8 weights and an fp32 scale per output row
  gptq,      // AutoGPTQ checkpoint: qweight, qzeros, scales, g_idx
  awq,       // AutoAWQ GEMM checkpoint: qweight, qzeros, scales
  gguf,      // a llama.cpp file type (mix) or one ggml type for every matrix
  mxfp4,     // OCP MXFP4: linear layers in E2M1, one E8M0 scale per 32 weights; rest 16-bit
};

struct WeightFormat {
  WeightScheme scheme = WeightScheme::plain;
  DType dtype = DType::bf16;      // plain: every tensor; mixed: the linear layers; else the unquantized tensors' dtype
  std::uint32_t bits = 4;         // gptq, awq: 2, 3, 4 or 8
  std::int64_t group_size = 128;  // gptq, awq: 32, 64, 128, ...; -1: one group per output row (all inputs)
  bool double_quant = true;       // bnb_nf4: quantize the absmax constants too (QLoRA §3)
  GgufMix gguf_mix = GgufMix::q4_k_m;
  GgmlType gguf_type = GgmlType::q4_k;  // gguf with GgufMix::pure: the type of every matrix (`--pure`)
};

// "bf16", "fp8", "int4", "nf4", "nf4-no-dq", "bnb-int8", "gptq-4bit-128g", "gptq-3bit-nogroup", "awq-4bit-128g",
// "q4_k_m", "Q8_0", "gguf-iq2_xxs" (one ggml type for every matrix). Case-insensitive.
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
  std::string explanation;            // one or two sentences: what is stored how, and the source
};

// Weight memory of `spec` stored as `format`, per tensor; while `format` is the checkpoint's own
// (spec.quantization), its recipe's rules pick the format of the tensors they cover. GGUF sizes are the tensor data of the file
// (metadata, vocabulary and 32-byte alignment padding excluded).
Result<WeightBytes> weights_bytes(const ModelSpec& spec, const WeightFormat& format);

}  // namespace vramfit
