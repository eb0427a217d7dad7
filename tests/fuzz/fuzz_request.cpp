// libFuzzer entry point: the request decoder the bindings use (parse_request: the question, inference or training
// keys, a curve's own keys).
#include <cstdint>      // std::uint8_t
#include <string_view>  // std::string_view

#include "json/request.hpp"
#include "formats/weight_formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto request = vramfit::parse_request(std::string_view(reinterpret_cast<const char*>(data), size));
  if (request.ok()) (void)vramfit::parse_weight_format(request.value().inference.weights);
  return 0;
}
