// libFuzzer entry point: the GGUF header parser and importer on arbitrary bytes.
#include <cstddef>  // std::byte
#include <cstdint>  // std::uint8_t
#include <span>     // std::span

#include "formats/gguf.hpp"
#include "formats/weight_formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  // The whole input as the file; then a prefix of it claiming a larger file (the page's File.slice case).
  auto whole = vramfit::import_gguf(bytes, size);
  if (whole.ok() && whole.value().need_prefix_bytes == 0) {
    // The spec a hostile file produced must be safe to estimate from.
    auto format = vramfit::parse_weight_format("q4_k_m");
    if (format.ok()) (void)vramfit::weights_bytes(whole.value().spec, format.value());
  }
  if (size > 0) {
    const std::size_t cut = size * data[0] / 256;
    (void)vramfit::parse_gguf(bytes.first(cut), size + data[size - 1] * 4096ULL);
  }
  return 0;
}
