#pragma once
// vramfit's public face: load the catalog once, then ask it questions as JSON text. Each answer is one JSON object
// with "ok": true, or {"ok": false, "error": {"field", "message"}} naming the request key that is wrong and what it
// allows; nothing throws. The request keys per question and the answers' shapes are in wasm/README.md.
#include <cstddef>      // std::byte
#include <cstdint>      // std::uint64_t
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "formats/safetensors.hpp"  // SafetensorsFile
#include "questions/evaluate.hpp"   // Catalog, load_catalog
#include "util/result.hpp"          // Result, Error, make_error

namespace vramfit {

// The request's "question": "estimate" (the default; inference, or training when "mode" is train, lora or qlora),
// "limits", "curve", "gpu_ranking", "biggest_model" or "remedies"; the other keys are its inputs. "questions" asks
// several about one scenario, evaluated once: {"ok": true, "answers": [...]}.
std::string answer(const Catalog& catalog, std::string_view request_json);

// The same questions about a model file known by its header: `prefix` is the file's first bytes, `file_size` its
// size, `file_name` picks the format (.gguf or .safetensors; "config" in the request is the config.json a
// safetensors checkpoint needs for its architecture). While the header runs past the prefix the answer is
// {"ok": true, "need_prefix_bytes": N}: read N bytes from the start and ask again.
std::string answer_file(const Catalog& catalog, std::span<const std::byte> prefix, std::uint64_t file_size,
                        std::string_view file_name, std::string_view request_json);

// A sharded safetensors checkpoint by its shards' headers, with its model.safetensors.index.json text (may be
// empty). While a header runs past its prefix the answer is {"ok": true, "need_prefix_bytes": N, "need_file": i}.
std::string answer_shards(const Catalog& catalog, std::span<const SafetensorsFile> files, std::string_view index_json,
                          std::string_view request_json);

// The lists a page's pickers need: {"models", "gpus", "dtypes", "kv_dtypes", "weight_formats" (each with its
// storage scheme), "inputs" (each request key with its URL key, kind, range or allowed values)}.
std::string catalog_to_json(const Catalog& catalog);

// {"ok": false, "error": {"field", "message"}}: how every answer reports a wrong input.
std::string error_to_json(const Error& error);

}  // namespace vramfit
