#pragma once
// Private to formats/: how the weight estimate and the file importers (gguf, safetensors) add tensors to a
// WeightBytes, so the three count bytes, parameters and storage types alike.
#include <cstdint>      // std::uint64_t
#include <string_view>  // std::string_view

#include "formats/weight_formats.hpp"  // WeightBytes
#include "model/tensors.hpp"           // TensorRole

namespace vramfit {

// Adds `bytes` of a tensor (its role) and its storage type to `out`.
void tally_tensor(WeightBytes& out, TensorRole role, std::string_view storage_type, std::uint64_t elements,
                  std::uint64_t bytes, std::uint64_t params);
// Sorts the storage tallies, largest first.
void finish_tally(WeightBytes& out);

}  // namespace vramfit
