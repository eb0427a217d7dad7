#pragma once
// llama.cpp's file types (`llama-quantize` mixes): which ggml type each tensor gets, as llama.cpp decides it.
#include <optional>     // std::optional
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "formats/ggml_types.hpp"
#include "model/model_spec.hpp"
#include "model/tensors.hpp"  // TensorShape

namespace vramfit {

// llama.cpp file types (llama_ftype) whose per-tensor choices are modelled, as `llama-quantize` names them; `pure`
// is one ggml type for every matrix (`--pure`).
enum class GgufMix { pure, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q2_k, q3_k_s, q3_k_m, q3_k_l, q4_k_s, q4_k_m, q5_k_s,
                     q5_k_m, q6_k, q1_0, q2_0, mxfp4_moe, iq2_xxs, iq2_xs, iq2_s, iq2_m, iq1_s, iq1_m, tq1_0, tq2_0,
                     q2_k_s, iq3_xxs, iq3_s, iq3_m, iq3_xs, iq4_nl, iq4_xs };

// "q4_k_m", "IQ4_XS", "gguf-mxfp4_moe" → the mix (llama-quantize's names, any case, "gguf-" optional); nothing for
// an unknown name or "pure".
std::optional<GgufMix> gguf_mix_by_name(std::string_view name) noexcept;
std::string_view gguf_mix_name(GgufMix mix) noexcept;  // lower case: "iq4_xs"
// Every modelled mix.
std::vector<GgufMix> gguf_mixes();

// Whether the published files of a mix are made with an importance matrix (`llama-quantize --imatrix`), which some
// of llama.cpp's choices depend on: the IQ mixes (most refuse to run without one; bartowski's and unsloth's IQ files
// all have one) and Q2_K_S, whose Q2_K tensors require one. The legacy and K-quant mixes are modelled without.
bool gguf_mix_uses_imatrix(GgufMix mix) noexcept;

// The GGUF file type a checkpoint format is published in for llama.cpp, when the checkpoint is not itself a GGUF
// type: "mxfp4" (gpt-oss) → MXFP4_MOE, as ggml-org's GGUFs of gpt-oss are. `quantization` is a weight format name.
std::optional<GgufMix> gguf_mix_for_checkpoint(std::string_view quantization) noexcept;

// The ggml type `tensor` is stored in: the file type's choice (`pure_type` for GgufMix::pure, which still leaves
// 1-D tensors and the router as the converter wrote them).
GgmlType gguf_storage_type(const ModelSpec& spec, GgufMix mix, GgmlType pure_type, const TensorShape& tensor);

}  // namespace vramfit

namespace vramfit::detail {

// The ggml type llama.cpp's llama_tensor_get_type (src/llama-quant.cpp) gives `tensor` in file type `mix`, with or
// without an importance matrix, no overrides. Declared here for the tests that pin it against llama.cpp.
GgmlType gguf_tensor_type(const ModelSpec& spec, GgufMix mix, const TensorShape& tensor, bool imatrix);
inline GgmlType gguf_tensor_type(const ModelSpec& spec, GgufMix mix, const TensorShape& tensor) {
  return gguf_tensor_type(spec, mix, tensor, gguf_mix_uses_imatrix(mix));
}

}  // namespace vramfit::detail
