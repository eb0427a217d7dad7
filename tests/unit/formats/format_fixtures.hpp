#pragma once
// Models and a helper the weight-format tests share: real configs written out, and one format's total bytes.
#include <cstdint>  // std::uint64_t

#include <doctest/doctest.h>

#include "formats/weight_formats.hpp"
#include "model/hf_config.hpp"

namespace vramfit::test {

inline ModelSpec llama2_7b() {  // meta-llama/Llama-2-7b-hf config.json: no grouped-query attention
  return model_from_hf_config(R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
    "num_attention_heads":32,"num_key_value_heads":32,"intermediate_size":11008,"vocab_size":32000,
    "max_position_embeddings":4096})").value();
}

inline ModelSpec llama31_8b() {  // meta-llama/Llama-3.1-8B config.json
  return model_from_hf_config(R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
    "num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256,
    "max_position_embeddings":131072})").value();
}

// The total weight bytes of `s` stored as `format`.
inline std::uint64_t bytes_of(const ModelSpec& s, const char* format) {
  auto f = parse_weight_format(format);
  REQUIRE_MESSAGE(f.ok(), format);
  auto w = weights_bytes(s, f.value());
  REQUIRE_MESSAGE(w.ok(), w.error().message);
  return w.value().total;
}

}  // namespace vramfit::test
