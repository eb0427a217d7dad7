#include "model_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>   // std::equal, std::min
#include <cctype>      // std::tolower
#include <cstddef>     // std::byte
#include <cstdint>     // std::uint64_t
#include <filesystem>  // std::filesystem::is_regular_file
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <optional>    // std::optional
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include "tables.hpp"  // message_text

namespace vramfit::cli {

namespace {

// A file's kind by its extension in any case ("Model.GGUF"), as names_a_path (vramfit/lookup.hpp) reads a path.
bool ends_in(std::string_view path, std::string_view extension) {
  if (path.size() < extension.size()) return false;
  const std::string_view tail = path.substr(path.size() - extension.size());
  return std::equal(tail.begin(), tail.end(), extension.begin(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

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
// given, and "config_name" to the checkpoint's name); invalid UTF-8 becomes U+FFFD, as in parse_args.
std::string with_config(const std::string& request_json, std::string config, std::optional<std::string> quant = {},
                        const std::string& config_name = {}) {
  auto request = nlohmann::json::parse(request_json);
  request["config"] = std::move(config);
  if (quant) request["quant_config"] = std::move(*quant);
  if (!config_name.empty()) request["config_name"] = config_name;
  return request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The checkpoint's name as its path gives it: a file's own name unless it is plain config.json, else its folder's
// (the working folder's for a bare "config.json"); in a Hugging Face cache snapshot
// (…/models--OWNER--NAME/snapshots/REVISION/config.json) its repository, OWNER/NAME. An NVIDIA checkpoint's name says
// its format (nvidia/Llama-3.1-70B-Instruct-FP8) where its config.json may not.
std::string checkpoint_name(const std::string& path, bool is_folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path given(path);
  if (!is_folder && given.filename() != "config.json") return given.filename().string();
  fs::path folder = fs::absolute(is_folder ? given : given.parent_path() / ".", ec).lexically_normal();
  if (ec) return "";
  if (folder.filename().empty()) folder = folder.parent_path();  // "checkpoint/" ends in an empty name
  const std::string repo = folder.parent_path().parent_path().filename().string();
  constexpr std::string_view kCache = "models--";
  if (folder.parent_path().filename() == "snapshots" && repo.starts_with(kCache)) {
    std::string name = repo.substr(kCache.size());
    if (const auto owner_end = name.find("--"); owner_end != std::string::npos) name.replace(owner_end, 2, "/");
    return name;
  }
  return folder.filename().string();
}

// The hf_quant_config.json published beside a config.json, as NVIDIA's checkpoints ship it (hf_quant_config.json
// beside config.json) or as copies are kept side by side (NAME_hf_quant_config.json beside NAME_config.json); ""
// when there is none.
std::string quant_config_beside(const std::string& config_path) {
  constexpr std::string_view kConfig = "config.json";
  const auto slash = config_path.find_last_of('/');
  const std::string_view name = std::string_view(config_path).substr(slash == std::string::npos ? 0 : slash + 1);
  if (!name.ends_with(kConfig)) return "";
  const std::string_view prefix = name.substr(0, name.size() - kConfig.size());
  if (!prefix.empty() && !prefix.ends_with('_') && !prefix.ends_with('-')) return "";
  std::string twin = config_path.substr(0, config_path.size() - kConfig.size()) + "hf_quant_config.json";
  return is_regular(twin) ? twin : "";
}

std::uint64_t file_size_of(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

std::string base64_of(const std::vector<std::byte>& bytes) {
  return base64(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

// A .gguf or .safetensors file by its header alone: 1 MiB first, then the longer prefix the core asks for
// (need_prefix_bytes) until it has the whole header. Never the tensor data.
FileAnswer answer_about_header(const Catalog& catalog, const std::string& path, const std::string& request_json,
                               std::vector<std::byte>* kept = nullptr) {
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
    if (need == 0) {
      if (kept) *kept = std::move(prefix);
      return {std::move(reply), std::nullopt};
    }
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
  if (!quant_config_path.empty() && (ends_in(path, ".gguf") || ends_in(path, ".safetensors")))
    return {"", Error{"--quant-config", "goes with a config.json or its folder, not a model file"}};
  const bool model_file = ends_in(path, ".gguf") || ends_in(path, ".safetensors");
  const std::string config_path = is_folder ? (path.ends_with('/') ? path : path + "/") + "config.json" : path;
  std::optional<std::string> quant;
  std::string beside;
  if (!quant_config_path.empty()) {
    quant = read_text(quant_config_path);
    if (!quant) return {"", Error{"--quant-config", "cannot read \"" + quant_config_path + "\" (an hf_quant_config.json up to 16 MiB)"}};
  } else if (!model_file) {
    beside = quant_config_beside(config_path);
    if (!beside.empty()) quant = read_text(beside);
    if (!quant) beside.clear();
  }
  const std::string name = model_file ? std::string() : checkpoint_name(path, is_folder);
  if (is_folder) {
    auto config = read_text(config_path);
    if (!config) return refuse("cannot read \"" + config_path + "\" (a checkpoint folder holds its config.json)");
    return {answer(catalog, with_config(request_json, std::move(*config), std::move(quant), name)), std::nullopt,
            beside};
  }
  if (ends_in(path, ".gguf")) return answer_about_header(catalog, path, request_json);
  if (ends_in(path, ".safetensors")) {
    // A safetensors shard takes its architecture from the config.json beside it (else a bare count).
    const auto slash = path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? std::string(".") : path.substr(0, slash);
    const auto config = read_text(folder + "/config.json");
    return answer_about_header(catalog, path, config ? with_config(request_json, *config) : request_json);
  }
  auto text = read_text(path);
  if (!text) return refuse("cannot read \"" + path + "\" (a config.json up to 16 MiB)");
  return {answer(catalog, with_config(request_json, std::move(*text), std::move(quant), name)), std::nullopt, beside};
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

bool is_model_path(const std::string& path) { return ends_in(path, ".gguf") || ends_in(path, ".safetensors"); }

bool is_config_path(const std::string& path) {
  std::error_code ec;
  return ends_in(path, ".json") || std::filesystem::is_directory(path, ec);
}

FileAnswer describe_model_file(const Catalog& catalog, const std::string& path, const std::string& flag) {
  auto refuse_as = [&flag](FileAnswer f) {
    if (f.error) f.error->field = flag;
    return f;
  };
  nlohmann::json d = nlohmann::json::object();
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(path, ec);
  if (!is_model_path(path)) {
    const std::string config_path = folder ? (path.ends_with('/') ? path : path + "/") + "config.json" : path;
    auto config = read_text(config_path);
    if (!config) return refuse_as(refuse("cannot read \"" + config_path + "\" (a config.json up to 16 MiB)"));
    d["name"] = checkpoint_name(path, folder);
    d["config"] = std::move(*config);
    d["config_name"] = d["name"];
    const std::string beside = quant_config_beside(config_path);
    if (auto quant = beside.empty() ? std::nullopt : read_text(beside)) d["quant_config"] = std::move(*quant);
    return {d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), std::nullopt};
  }
  std::string config;
  if (ends_in(path, ".safetensors")) {
    // A safetensors file takes its architecture from the config.json beside it.
    const auto slash = path.find_last_of('/');
    const std::string beside = (slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/config.json";
    if (auto text = read_text(beside)) config = std::move(*text);
    if (!config.empty()) d["config"] = config;
  }
  std::vector<std::byte> header;
  FileAnswer read = answer_about_header(catalog, path, config.empty() ? "{}" : with_config("{}", config), &header);
  if (read.error) return refuse_as(std::move(read));
  const auto answered = nlohmann::json::parse(read.json, nullptr, false);
  if (!answered.is_object() || !answered.value("ok", false)) {
    const auto& e = answered.is_object() ? answered.value("error", nlohmann::json::object()) : nlohmann::json::object();
    return {"", Error{flag, "\"" + path + "\": " + (e.contains("message") ? message_text(e.at("message")) : "cannot be read")}};
  }
  const auto slash = path.find_last_of('/');
  d["name"] = slash == std::string::npos ? path : path.substr(slash + 1);
  d["files"] = nlohmann::json::array({{{"name", d["name"]}, {"size", file_size_of(path)},
                                       {"header", base64_of(header)}}});
  return {d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), std::nullopt};
}

FileAnswer with_draft_file(const std::string& request_json) {
  nlohmann::json request = nlohmann::json::parse(request_json);
  const auto draft = request.find("draft");
  if (draft == request.end() || !draft->is_string()) return {request_json, std::nullopt};
  const std::string path = draft->get<std::string>();
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(path, ec);
  if (!folder && !ends_in(path, ".json")) return {request_json, std::nullopt};
  const std::string config_path = folder ? (path.ends_with('/') ? path : path + "/") + "config.json" : path;
  auto config = read_text(config_path);
  if (!config) return {"", Error{"--draft", "cannot read \"" + config_path + "\" (a draft's config.json)"}};
  request.erase("draft");
  request["draft_config"] = std::move(*config);
  return {request.dump(), std::nullopt};
}

}  // namespace vramfit::cli
