// libFuzzer entry point: the safetensors header parser and importer on arbitrary bytes.
#include <cstddef>  // std::byte
#include <cstdint>  // std::uint8_t
#include <span>     // std::span

#include "formats/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  (void)vramfit::parse_safetensors(bytes, size);
  const vramfit::SafetensorsFile files[] = {{"model.safetensors", bytes, size}};
  (void)vramfit::import_safetensors(files, "", "");
  if (size > 8) (void)vramfit::parse_safetensors(bytes.first(size / 2), size + data[0] * 1000ULL);
  // The same bytes as an index.json.
  (void)vramfit::parse_safetensors_index(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
