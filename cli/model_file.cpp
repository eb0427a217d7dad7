#include "model_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>   // std::min
#include <cstddef>     // std::byte
#include <cstdint>     // std::uint64_t
#include <filesystem>  // std::filesystem::is_regular_file
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <optional>    // std::optional
#include <utility>     // std::move
#include <vector>      // std::vector

namespace vramfit::cli {

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

// Only regular files: a device or FIFO (/dev/zero) reports size 0 and would be read forever.
bool is_regular(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

std::optional<std::string> read_text(const std::string& path) {
  if (!is_regular(path)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // Config files are small; refuse anything absurd rather than reading gigabytes.
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0 || size > 16 * 1024 * 1024) return std::nullopt;
  in.seekg(0);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

FileAnswer refuse(std::string message) { return {"", Error{"--model", std::move(message)}}; }

// The request with "config" set to a config.json's text (and "quant_config" to an hf_quant_config.json's, when
// given); invalid UTF-8 becomes U+FFFD, as in parse_args.
std::string with_config(const std::string& request_json, std::string config, std::optional<std::string> quant = {}) {
  auto request = nlohmann::json::parse(request_json);
  request["config"] = std::move(config);
  if (quant) request["quant_config"] = std::move(*quant);
  return request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A .gguf or .safetensors file by its header alone: 1 MiB first, then the longer prefix the core asks for
// (need_prefix_bytes) until it has the whole header. Never the tensor data.
FileAnswer answer_about_header(const Catalog& catalog, const std::string& path, const std::string& request_json) {
  if (!is_regular(path)) return refuse("\"" + path + "\" is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return refuse("cannot read \"" + path + "\"");
  in.seekg(0, std::ios::end);
  const auto end = in.tellg();
  if (end < 0) return refuse("cannot size \"" + path + "\"");
  const auto file_size = static_cast<std::uint64_t>(end);
  std::uint64_t want = std::min<std::uint64_t>(file_size, kMiB);
  for (int round = 0; round < 8; ++round) {
    std::vector<std::byte> prefix(static_cast<std::size_t>(want));
    in.clear();
    in.seekg(0);
    in.read(reinterpret_cast<char*>(prefix.data()), static_cast<std::streamsize>(want));
    if (static_cast<std::uint64_t>(in.gcount()) != want)
      return refuse("short read of \"" + path + "\"");
    std::string reply = answer_file(catalog, prefix, file_size, path, request_json);
    const auto parsed = nlohmann::json::parse(reply, nullptr, false);
    const auto need = parsed.is_object() ? parsed.value("need_prefix_bytes", std::uint64_t{0}) : 0;
    if (need == 0) return {std::move(reply), std::nullopt};
    if (need > file_size || need <= want) return refuse("header of \"" + path + "\" is inconsistent");
    want = need;
  }
  return refuse("header of \"" + path + "\" is too long");
}

}  // namespace

FileAnswer answer_about_file(const Catalog& catalog, const std::string& path, const std::string& request_json,
                             const std::string& quant_config_path) {
  std::error_code ec;
  const bool is_folder = std::filesystem::is_directory(path, ec);
  if (!quant_config_path.empty() && (path.ends_with(".gguf") || path.ends_with(".safetensors")))
    return {"", Error{"--quant-config", "goes with a config.json or its folder, not a model file"}};
  std::optional<std::string> quant;
  if (!quant_config_path.empty()) {
    quant = read_text(quant_config_path);
    if (!quant) return {"", Error{"--quant-config", "cannot read \"" + quant_config_path + "\" (an hf_quant_config.json up to 16 MiB)"}};
  } else if (is_folder && is_regular(path + "/hf_quant_config.json")) {
    quant = read_text(path + "/hf_quant_config.json");
  }
  if (is_folder) {
    auto config = read_text(path + "/config.json");
    if (!config) return refuse("cannot read \"" + path + "/config.json\" (a checkpoint folder holds its config.json)");
    return {answer(catalog, with_config(request_json, std::move(*config), std::move(quant))), std::nullopt};
  }
  if (path.ends_with(".gguf")) return answer_about_header(catalog, path, request_json);
  if (path.ends_with(".safetensors")) {
    // A safetensors shard takes its architecture from the config.json beside it (else a bare count).
    const auto slash = path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? std::string(".") : path.substr(0, slash);
    const auto config = read_text(folder + "/config.json");
    return answer_about_header(catalog, path, config ? with_config(request_json, *config) : request_json);
  }
  auto text = read_text(path);
  if (!text) return refuse("cannot read \"" + path + "\" (a config.json up to 16 MiB)");
  return {answer(catalog, with_config(request_json, std::move(*text), std::move(quant))), std::nullopt};
}

}  // namespace vramfit::cli
