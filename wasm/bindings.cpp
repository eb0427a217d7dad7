// Embind map of the core's public face (wasm/README.md, vramfit.d.ts): JSON text in, JSON text out, so the page and
// the CLI share one request reader and one report writer, and errors cross as {"ok": false, "error": {...}}, never
// as exceptions. Here JS values are adapted to the core's types, and nothing else.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>  // EM_JS

#include <cstddef>  // std::byte
#include <cstdint>  // std::uint8_t, std::uint64_t
#include <span>     // std::span
#include <string>   // std::string, std::to_string
#include <vector>   // std::vector

#include "vramfit/builtin_data.hpp"
#include "vramfit/lookup.hpp"
#include "vramfit/vramfit.hpp"

// Embind returns a std::string by looking at every byte in JS for a NUL before decoding it; the answers run to
// 100 KB, and that loop cost about 10 ms before the first answer. Here the whole text goes to the
// browser's TextDecoder at once (UTF8Decoder, the glue's, with -sTEXTDECODER=2).
EM_JS(emscripten::EM_VAL, vramfit_text_to_js, (const char* text, std::size_t size), {
  return Emval.toHandle(UTF8Decoder.decode(HEAPU8.subarray(text, text + size)));
});

namespace {

using namespace vramfit;

emscripten::val to_js(const std::string& text) {
  return emscripten::val::take_ownership(vramfit_text_to_js(text.data(), text.size()));
}

// Parsed once per module instance; the catalogs are compiled in.
const CatalogHandle& builtin_catalog() {
  static const CatalogHandle opened = open_catalog(builtin::models_json(), builtin::gpus_json(), builtin::model_configs());
  return opened;
}

// The reads of drafts and other models the page kept (keep_read), which its requests name by key.
ModelReads& kept_reads() {
  static const std::shared_ptr<ModelReads> reads = make_model_reads();
  return *reads;
}

std::span<const std::byte> bytes_of(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()};
}

// A JS number of bytes is a double: exact up to 2^53.
bool is_byte_count(double size) { return size >= 0 && size <= static_cast<double>(kMaxByteCount); }

std::string answer_json_text(const std::string& request_json) {
  const auto& [catalog, error_json] = builtin_catalog();
  if (!catalog) return error_json;
  return answer(*catalog, request_json, &kept_reads());
}

std::string catalog_json_text() {
  const auto& [catalog, error_json] = builtin_catalog();
  if (!catalog) return error_json;
  return catalog_to_json(*catalog);
}

// `prefix_js`: a Uint8Array of the file's first bytes (File.slice); `file_size`: its size.
std::string answer_file_json_text(const emscripten::val& prefix_js, double file_size, const std::string& file_name,
                             const std::string& request_json) {
  const auto& [catalog, error_json] = builtin_catalog();
  if (!catalog) return error_json;
  if (!is_byte_count(file_size))
    return refusal_to_json(BindingRefusal::file_size);
  const std::vector<std::uint8_t> bytes = emscripten::convertJSArrayToNumberVector<std::uint8_t>(prefix_js);
  return answer_file(*catalog, bytes_of(bytes), static_cast<std::uint64_t>(file_size), file_name, request_json,
                     &kept_reads());
}

// `files_js`: an array of {name, size, bytes: Uint8Array prefix}, one per shard.
std::string answer_shards_json_text(const emscripten::val& files_js, const std::string& index_json,
                               const std::string& request_json) {
  const auto& [catalog, error_json] = builtin_catalog();
  if (!catalog) return error_json;
  if (!files_js.isArray()) return refusal_to_json(BindingRefusal::shards_not_array);
  const auto count = files_js["length"].as<unsigned>();
  if (count == 0 || count > kMaxShards) return refusal_to_json(BindingRefusal::shard_count);
  std::vector<std::vector<std::uint8_t>> buffers(count);  // sized once: the spans below point into them
  std::vector<SafetensorsFile> files;
  for (unsigned i = 0; i < count; ++i) {
    const emscripten::val f = files_js[i];
    const std::string field = "files[" + std::to_string(i) + "]";
    if (!f["name"].isString() || !f["size"].isNumber())
      return refusal_to_json(BindingRefusal::shard_fields, field);
    const double size = f["size"].as<double>();
    if (!is_byte_count(size)) return refusal_to_json(BindingRefusal::shard_size, field + ".size");
    buffers[i] = emscripten::convertJSArrayToNumberVector<std::uint8_t>(f["bytes"]);
    files.push_back({f["name"].as<std::string>(), bytes_of(buffers[i]), static_cast<std::uint64_t>(size)});
  }
  return answer_shards(*catalog, files, index_json, request_json, &kept_reads());
}

emscripten::val answer_js(const std::string& request_json) { return to_js(answer_json_text(request_json)); }
emscripten::val catalog_js() { return to_js(catalog_json_text()); }
emscripten::val answer_file_js(const emscripten::val& prefix_js, double file_size, const std::string& file_name,
                               const std::string& request_json) {
  return to_js(answer_file_json_text(prefix_js, file_size, file_name, request_json));
}
emscripten::val answer_shards_js(const emscripten::val& files_js, const std::string& index_json,
                                 const std::string& request_json) {
  return to_js(answer_shards_json_text(files_js, index_json, request_json));
}

emscripten::val read_model_name_js(const std::string& name, const std::string& revision) {
  const auto& [catalog, error_json] = builtin_catalog();
  return to_js(catalog ? read_model_name(*catalog, name, revision) : error_json);
}
emscripten::val plan_hub_reads_js(const std::string& name, const std::string& revision, const std::string& listing) {
  return to_js(plan_hub_reads(name, revision, listing));
}
emscripten::val keep_read_js(const std::string& key, const std::string& description_json) {
  return to_js(keep_model_read(kept_reads(), key, description_json));
}
void forget_read_js(const std::string& key) { forget_model_read(kept_reads(), key); }
emscripten::val lookup_failure_js(const std::string& failure_json) { return to_js(lookup_failure(failure_json)); }

}  // namespace

EMSCRIPTEN_BINDINGS(vramfit) {
  emscripten::function("read_model_name", &read_model_name_js);
  emscripten::function("plan_hub_reads", &plan_hub_reads_js);
  emscripten::function("lookup_failure", &lookup_failure_js);
  emscripten::function("answer", &answer_js);
  emscripten::function("catalog", &catalog_js);
  emscripten::function("answer_file", &answer_file_js);
  emscripten::function("answer_shards", &answer_shards_js);
  emscripten::function("keep_read", &keep_read_js);
  emscripten::function("forget_read", &forget_read_js);
}
