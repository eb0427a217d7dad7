// libFuzzer entry point: the config.json importer, then the estimators that take its spec.
#include <cstdint>      // std::uint8_t
#include <string_view>  // std::string_view

#include "model/hf_config.hpp"
#include "formats/weight_formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto spec = vramfit::model_from_hf_config(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!spec.ok()) return 0;
  (void)vramfit::count_params(spec.value());
  for (const char* format : {"bf16", "gptq-4bit-128g", "q4_k_m", "nf4"}) {
    auto f = vramfit::parse_weight_format(format);
    if (f.ok()) (void)vramfit::weights_bytes(spec.value(), f.value());
  }
  return 0;
}
