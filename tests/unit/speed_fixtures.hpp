#pragma once
// Shared by the speed and ranking tests: a preset's SpeedModel and memory from the stable core APIs.
#include <doctest/doctest.h>

#include "test_support.hpp"
#include "memory/kv_cache.hpp"
#include "hardware/speed.hpp"
#include "util/units.hpp"
#include "formats/weight_formats.hpp"

namespace vramfit::test {

inline WeightBytes weights_of(const char* model, const char* format) {
  auto f = parse_weight_format(format);
  REQUIRE_MESSAGE(f.ok(), format);
  auto w = weights_bytes(preset(model), f.value());
  REQUIRE_MESSAGE(w.ok(), model << " " << format);
  return w.value();
}

inline SpeedModel speed_model(const char* model, const char* format) {
  auto m = speed_model_from(preset(model), weights_of(model, format));
  REQUIRE(m.ok());
  return m.value();
}

// One sequence's fp16 KV cache at `context` tokens.
inline std::uint64_t kv_bytes(const char* model, std::uint64_t context) {
  auto kv = estimate_kv_cache(preset(model), DType::fp16, context, 1);
  REQUIRE(kv.ok());
  return kv.value().bytes;
}

// The tests' own memory arithmetic for the article's tiers: weights + fp16 KV at `context` + a fixed
// 1 GiB for the CUDA context and compute buffers (HF "model memory anatomy": 1–2 GB of kernels).
inline constexpr std::uint64_t kTierOverheadBytes = kGiB;
inline std::uint64_t tier_total_bytes(const char* model, const char* format, std::uint64_t context) {
  return weights_of(model, format).total + kv_bytes(model, context) + kTierOverheadBytes;
}

}  // namespace vramfit::test
