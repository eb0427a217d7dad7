#include "json/model_read.hpp"

#include <array>    // std::array
#include <cstddef>  // std::byte
#include <string>   // std::string
#include <utility>  // std::move
#include <vector>   // std::vector

#include "formats/gguf.hpp"         // import_gguf_splits
#include "formats/hub_repo.hpp"     // gguf_quant_label
#include "formats/safetensors.hpp"  // import_safetensors
#include "json/report_writer.hpp"   // error_to_json
#include "util/json_writer.hpp"     // JsonWriter
#include "memory/engines/engines.hpp"  // parse_engine
#include "vramfit/inputs.hpp"  // input_by_key, read_by_engine

namespace vramfit::detail {

namespace {

constexpr std::string_view kReadKeys[] = {"name",        "repo",  "revision", "hf_file", "config", "quant_config",
                                          "config_name", "files", "index"};
constexpr std::string_view kFileKeys[] = {"name", "size", "header"};

// RFC 4648 base64 (padding optional); nothing for any other character.
std::optional<std::vector<std::byte>> from_base64(std::string_view text) {
  static const std::array<int, 256> value = [] {
    std::array<int, 256> v{};
    v.fill(-1);
    const std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i) v[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
    return v;
  }();
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::vector<std::byte> out;
  out.reserve(text.size() / 4 * 3 + 2);
  unsigned bits = 0;
  int have = 0;
  for (char c : text) {
    const int v = value[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(v);
    have += 6;
    if (have >= 8) {
      have -= 8;
      out.push_back(static_cast<std::byte>((bits >> have) & 0xFF));
    }
  }
  return out;
}

Error refused(const std::string& field, Message m) { return make_error(field, std::move(m)); }

// The files' headers imported as one model: GGUF (one file or its parts) or safetensors shards with the config.json.
Result<ImportedModel> import_files(const json& files, const std::string& config, const std::string& index,
                                   const std::string& field) {
  std::vector<std::vector<std::byte>> bytes;
  std::vector<SafetensorsFile> shown;
  bytes.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string path = field + ".files[" + std::to_string(i) + "]";
    if (!files[i].is_object())
      return refused(path, message("read.file", "expected {\"name\", \"size\", \"header\"}: the file's name, its size "
                                                "in bytes and its first bytes in base64, no more than its size"));
    if (auto unknown = unknown_key(files[i], kFileKeys))
      return refused(path + "." + unknown->key,
                     message("read.file_unknown_key", "is not a known key of a file read; allowed: {allowed}",
                             {arg::text("allowed", unknown->allowed)}));
    FieldReader f(files[i], path);
    const std::string name = f.string("name").value_or("");
    const std::uint64_t size = f.uint("size").value_or(0);
    const std::string header = f.string("header").value_or("");
    if (f.error()) return *f.error();
    auto decoded = from_base64(header);
    if (name.empty() || !decoded || decoded->size() > size)
      return refused(path, message("read.file", "expected {\"name\", \"size\", \"header\"}: the file's name, its size "
                                                "in bytes and its first bytes in base64, no more than its size"));
    bytes.push_back(std::move(*decoded));
    shown.push_back({name, {bytes.back().data(), bytes.back().size()}, size});
  }
  bool gguf = true, safetensors = true;
  for (const SafetensorsFile& file : shown) {
    gguf = gguf && file.name.ends_with(".gguf");
    safetensors = safetensors && file.name.ends_with(".safetensors");
  }
  if (!gguf && !safetensors)
    return refused(field + ".files", message("read.files_kind", "expected the .gguf file (or its parts) or the "
                                                                ".safetensors shards of one model"));
  auto imported = gguf ? import_gguf_splits(shown) : import_safetensors(shown, config, index);
  if (!imported) {
    Error e = imported.error();
    e.field = field + "." + e.field;
    return e;
  }
  if (imported.value().need_prefix_bytes != 0) {
    const SafetensorsFile& file = shown[imported.value().need_file < shown.size() ? imported.value().need_file : 0];
    return refused(field + ".files", message("read.header_short",
                                             "the header of {file} runs to {need} bytes; {have} were sent: send its "
                                             "first {need} bytes",
                                             {arg::text("file", file.name), arg::digits("need", imported.value().need_prefix_bytes),
                                              arg::digits("have", file.prefix.size())}));
  }
  return imported;
}

// One description; `field` names it in errors ("draft_read", "also_read.NAME").
Result<ReadModel> read_model(const json& v, const std::string& field) {
  if (!v.is_object())
    return refused(field, message("read.object", "expected what was read about the model: an object with its name, "
                                                 "config.json and files' headers"));
  if (auto unknown = unknown_key(v, kReadKeys))
    return refused(field + "." + unknown->key,
                   message("read.unknown_key", "is not a known key of a model read; allowed: {allowed}",
                           {arg::text("allowed", unknown->allowed)}));
  FieldReader f(v, field);
  ReadModel out;
  out.name = f.string("name").value_or("");
  out.repo = f.string("repo").value_or("");
  out.revision = f.string("revision").value_or("");
  out.hf_file = f.string("hf_file").value_or("");
  out.config_json = config_text(f);
  if (const json* quant = f.find("quant_config"))
    out.quant_config_json = quant->is_object() ? dump(*quant) : f.string("quant_config").value_or("");
  out.config_name = f.string("config_name").value_or("");
  const std::string index = f.string("index").value_or("");
  const json* files = f.array("files");
  if (f.error()) return *f.error();
  if (files && !files->empty()) {
    auto imported = import_files(*files, out.config_json, index, field);
    if (!imported) return imported.error();
    out.imported = std::move(imported).value();
    // The quantization read from a Hub repository, as llama-server's -hf / -hfd name it again.
    if (!out.repo.empty() && (*files)[0].contains("name") && (*files)[0]["name"].is_string())
      out.quant = gguf_quant_label((*files)[0]["name"].get<std::string>());
  }
  if (out.config_json.empty() && !out.imported)
    return refused(field, message("read.nothing", "holds neither a config.json nor a model file's header"));
  return out;
}

// A description, or the key of a read the client kept (a text in its place).
Result<ReadModel> read_or_kept(const json& v, const std::string& field, const ModelReads* reads) {
  if (!v.is_string()) return read_model(v, field);
  const std::string key = v.get<std::string>();
  if (reads)
    if (const auto it = reads->kept.find(key); it != reads->kept.end()) return it->second;
  return refused(field, message("read.not_kept", "\"{key}\" names no model read kept here: send what was read about "
                                                 "the model, or keep that first under this name",
                                {arg::text("key", key)}));
}

}  // namespace

std::optional<Error> read_models(const json& request, Request& r, const ModelReads* reads) {
  // An engine that runs no draft refuses draft_read as it refuses draft, once the engine is known.
  const Input* row = input_by_key("draft_read", InputUse::inference);
  const bool drafts = !row || read_by_engine(*row, static_cast<unsigned>(r.engine));
  if (const auto it = request.find("draft_read"); drafts && it != request.end() && !it->is_null()) {
    if (r.draft.empty())
      return refused("draft_read", message("read.draft_without_name", "goes with draft, the name it was read for"));
    if (!r.draft_config.empty())
      return refused("draft_read", message("draft.twice", "give the draft once: a preset id or \"mtp\", or its config.json"));
    auto read = read_or_kept(*it, "draft_read", reads);
    if (!read) return read.error();
    r.draft_read = std::move(read).value();
    if (r.draft_read->name.empty()) r.draft_read->name = r.draft;
  }
  const auto it = request.find("also_read");
  if (it == request.end() || it->is_null()) return std::nullopt;
  if (!it->is_object())
    return refused("also_read", message("read.also_object", "expected an object: each model named in also that was "
                                                            "read, with what was read about it"));
  for (const auto& [name, value] : it->items()) {
    bool named = false;
    for (OtherModelRequest& also : r.also) {
      if (also.model != name) continue;
      auto read = read_or_kept(value, "also_read." + name, reads);
      if (!read) return read.error();
      also.read = std::move(read).value();
      if (also.read->name.empty()) also.read->name = name;
      named = true;
    }
    if (!named)
      return refused("also_read", message("read.also_unnamed", "\"{name}\" is not among the models named in also",
                                          {arg::text("name", name)}));
  }
  return std::nullopt;
}

}  // namespace vramfit::detail

namespace vramfit {

std::shared_ptr<ModelReads> make_model_reads() { return std::make_shared<ModelReads>(); }

std::string keep_model_read(ModelReads& reads, std::string_view key, std::string_view description_json) {
  const std::string field(key);
  auto parsed = detail::parse_json(description_json, field);
  if (!parsed) return error_to_json(parsed.error());
  auto read = detail::read_model(parsed.value(), field);
  if (!read) return error_to_json(read.error());
  detail::JsonWriter w;
  w.begin_object();
  w.field("key", field);
  w.field("name", read.value().name);
  w.field("ok", true);
  w.end_object();
  reads.kept.insert_or_assign(field, std::move(read).value());
  return w.take();
}

void forget_model_read(ModelReads& reads, std::string_view key) {
  if (const auto it = reads.kept.find(key); it != reads.kept.end()) reads.kept.erase(it);
}

}  // namespace vramfit
