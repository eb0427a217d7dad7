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
                     q5_k_m, q6_k };

// "q4_k_m" → GgufMix::q4_k_m (lower case, as llama-quantize names them); nothing for an unknown name or "pure".
std::optional<GgufMix> gguf_mix_by_name(std::string_view name) noexcept;
std::string_view gguf_mix_name(GgufMix mix) noexcept;
// Every modelled mix, in llama-quantize's order.
std::vector<GgufMix> gguf_mixes();

// The ggml type `tensor` is stored in: the file type's choice (`pure_type` for GgufMix::pure, which still leaves
// 1-D tensors and the router as the converter wrote them).
GgmlType gguf_storage_type(const ModelSpec& spec, GgufMix mix, GgmlType pure_type, const TensorShape& tensor);

}  // namespace vramfit

namespace vramfit::detail {

// The ggml type llama.cpp's llama_tensor_get_type (src/llama-quant.cpp) gives `tensor` in file type `mix`
// (no importance matrix, no overrides). Declared here for the tests that pin it against llama.cpp.
GgmlType gguf_tensor_type(const ModelSpec& spec, GgufMix mix, const TensorShape& tensor);

}  // namespace vramfit::detail
