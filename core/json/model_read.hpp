#pragma once
// What a client read for a draft (draft_read) or for another model loaded first (also_read): one description for
// both, the same a client gathers for the model asked about, read into a ReadModel:
//   {"name": the name shown, "repo": the Hub repository read (optional), "config": its config.json (text or object),
//    "quant_config": its hf_quant_config.json, "config_name": the checkpoint's name,
//    "files": [{"name", "size", "header": base64 of the file's first bytes, its whole header}], "index": the
//    model.safetensors.index.json text}
// The headers are imported as a dropped file's are (GGUF, its parts, or safetensors shards with the config.json).
// A client that asks many answers about one read keeps it once (keep_model_read) and names it by its key.
#include <functional>  // std::less
#include <map>         // std::map
#include <string>      // std::string

#include "questions/evaluate.hpp"  // Request
#include "util/json_fields.hpp"
#include "util/result.hpp"

namespace vramfit {

// The reads a client kept, by the key it gave each.
struct ModelReads {
  std::map<std::string, ReadModel, std::less<>> kept;
};

}  // namespace vramfit

namespace vramfit::detail {

// Reads "draft_read" (with "draft", the name it was read for) and "also_read" ({name in "also": description}) into
// `r`, after "draft" and "also" were read; a text in place of a description is the key of a read kept in `reads`.
// An error names the key.
std::optional<Error> read_models(const json& request, Request& r, const ModelReads* reads);

}  // namespace vramfit::detail
