#pragma once
// One shard of a safetensors checkpoint as a caller hands it over: its name, size and first bytes.
#include <cstddef>  // std::byte
#include <cstdint>  // std::uint64_t
#include <span>     // std::span
#include <string>   // std::string

namespace vramfit {

struct SafetensorsFile {
  std::string name;                   // file name as the index names it ("model-00001-of-00002.safetensors")
  std::span<const std::byte> prefix;  // the file's first bytes
  std::uint64_t file_size = 0;
};

}  // namespace vramfit
