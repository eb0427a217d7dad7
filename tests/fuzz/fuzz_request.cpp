// libFuzzer entry point: the URL/page state decoder (request_from_json).
#include <cstdint>      // std::uint8_t
#include <string_view>  // std::string_view

#include "questions/evaluate.hpp"
#include "formats/weight_formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto request = vramfit::request_from_json(std::string_view(reinterpret_cast<const char*>(data), size));
  if (request.ok()) (void)vramfit::parse_weight_format(request.value().weights);
  return 0;
}
