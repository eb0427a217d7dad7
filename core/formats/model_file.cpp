#include "formats/model_file.hpp"

#include <string>  // std::string

#include "formats/gguf.hpp"
#include "formats/safetensors.hpp"

namespace vramfit {

Result<ImportedModel> import_model_header(std::string_view file_name, std::span<const std::byte> prefix,
                                          std::uint64_t file_size, std::string_view config_json) {
  if (prefix.size() > file_size) return make_error("file", message("file.prefix_over_file", "the prefix is longer than the file"));
  if (file_name.ends_with(".gguf")) return import_gguf(prefix, file_size);
  if (file_name.ends_with(".safetensors")) {
    const auto slash = file_name.find_last_of('/');
    const SafetensorsFile file{std::string(slash == std::string_view::npos ? file_name : file_name.substr(slash + 1)),
                               prefix, file_size};
    return import_safetensors(std::span<const SafetensorsFile>(&file, 1), config_json, "");
  }
  return make_error("file", message("file.not_model_file", "\"{file}\" is neither a .gguf nor a .safetensors file",
                                    {arg::text("file", file_name)}));
}

}  // namespace vramfit
