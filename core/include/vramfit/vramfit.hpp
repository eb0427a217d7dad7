#pragma once
// vramfit's public face: open the catalog once, then ask it questions as JSON text. Each answer is one JSON object
// with "ok": true, or {"ok": false, "error": {"field", "message"}} naming the request key that is wrong and what it
// allows; nothing throws. The request keys per question and the answers' shapes are in wasm/README.md.
#include <cstddef>      // std::byte
#include <cstdint>      // std::uint64_t
#include <memory>       // std::shared_ptr
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "vramfit/inputs.hpp"            // the request's keys, with their CLI flags
#include "vramfit/safetensors_file.hpp"  // SafetensorsFile

namespace vramfit {

// The model presets and the GPU catalog, parsed: what every question reads. Clients hold it by open_catalog's
// handle and never look inside.
struct Catalog;

// `catalog` is null when the catalogs do not parse; `error_json` then says why, as answers do.
struct CatalogHandle {
  std::shared_ptr<const Catalog> catalog;
  std::string error_json;
};

// The catalogs' JSON: data/models.json and data/gpus.json (compiled in: vramfit/builtin_data.hpp), parsed once.
// A preset's config is its object, or its index in `model_configs` (the compiled-in texts), which outlive the
// catalog.
CatalogHandle open_catalog(std::string_view models_json, std::string_view gpus_json,
                           std::span<const std::string_view> model_configs = {});

// What a client read about a draft or another model loaded first (the description `draft_read` and each entry of
// `also_read` take: its config.json and its files' headers in base64), read once and kept under a key the client
// picks. A request names a kept read by its key in place of the description ("draft_read": "KEY", "also_read":
// {"NAME": "KEY"}), so a header of megabytes is neither sent nor decoded again with every answer. Clients hold it by
// make_model_reads' pointer and never look inside; a request read without it refuses a key.
struct ModelReads;
std::shared_ptr<ModelReads> make_model_reads();

// Reads `description_json` (draft_read's shape) and keeps it under `key`, in place of what the key held:
// {"ok": true, "key", "name"} or the description's error, its field under `key` ("KEY.files[0]"); a refused
// description leaves the key as it was.
std::string keep_model_read(ModelReads& reads, std::string_view key, std::string_view description_json);
void forget_model_read(ModelReads& reads, std::string_view key);

// The request's "question": "estimate" (the default; inference, or training when "mode" is train, lora or qlora),
// "limits", "curve", "gpu_ranking", "biggest_model" or "remedies"; the other keys are its inputs. "questions" asks
// several about one scenario, evaluated once: {"ok": true, "answers": [...]}.
std::string answer(const Catalog& catalog, std::string_view request_json, const ModelReads* reads = nullptr);

// The same questions about a model file known by its header: `prefix` is the file's first bytes, `file_size` its
// size, `file_name` picks the format (.gguf or .safetensors; "config" in the request is the config.json a
// safetensors checkpoint needs for its architecture). While the header runs past the prefix the answer is
// {"ok": true, "need_prefix_bytes": N}: read N bytes from the start and ask again.
std::string answer_file(const Catalog& catalog, std::span<const std::byte> prefix, std::uint64_t file_size,
                        std::string_view file_name, std::string_view request_json,
                        const ModelReads* reads = nullptr);

// A sharded safetensors checkpoint by its shards' headers, with its model.safetensors.index.json text (may be
// empty). While a header runs past its prefix the answer is {"ok": true, "need_prefix_bytes": N, "need_file": i}.
std::string answer_shards(const Catalog& catalog, std::span<const SafetensorsFile> files, std::string_view index_json,
                          std::string_view request_json, const ModelReads* reads = nullptr);

// The lists a page's pickers need: {"models", "gpus", "dtypes", "kv_dtypes", "weight_formats" (each with its
// storage scheme), "inputs" (each request key with its URL key, kind, range or allowed values)}.
std::string catalog_to_json(const Catalog& catalog);

// {"ok": false, "error": {"field", "message"}}: how every answer reports a wrong input, for a binding's own checks
// of its arguments; `field` names the shard a shard's refusal is about ("files[2]", "files[2].size").
enum class BindingRefusal { file_size, shards_not_array, shard_count, shard_fields, shard_size };
// What a binding takes, as its refusals say it: a JS number of bytes is a double, exact up to 2^kByteCountBits, and a
// checkpoint comes in 1 to kMaxShards shards.
inline constexpr unsigned kByteCountBits = 53;
inline constexpr std::uint64_t kMaxByteCount = std::uint64_t{1} << kByteCountBits;
inline constexpr unsigned kMaxShards = 4096;
std::string refusal_to_json(BindingRefusal refusal, std::string_view field = {});

}  // namespace vramfit
