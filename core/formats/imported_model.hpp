#pragma once
// What any model file (GGUF, safetensors) says about itself, for the estimators: the architecture, exact
// weight bytes per role, the quantization mix, and the parameter count.
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint64_t
#include <optional>  // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include "formats/weight_formats.hpp"  // WeightBytes
#include "model/model_spec.hpp"        // ModelSpec
#include "util/message.hpp"  // Message

namespace vramfit {

struct ImportedModel {
  std::uint64_t need_prefix_bytes = 0;  // non-zero: read at least this many bytes from the start and ask again
  std::size_t need_file = 0;            // safetensors: which shard needs a longer prefix
  std::string format;                   // "GGUF v3", "safetensors"
  ModelSpec spec;                       // is_bare() when only a count is known (safetensors without config)
  WeightBytes weights;                  // exact: total, per role, per storage type; params unpacked
  std::uint64_t file_type = 0;          // GGUF general.file_type (llama_ftype), 0 when absent
  std::vector<Message> notes;
};

// A model a client read for a draft or for another model loaded beside (a Hub repository, an Ollama model, a file),
// described as the model asked about is: its name, its config.json (and hf_quant_config.json), its files' headers.
struct ReadModel {
  std::string name;               // as shown: "owner/name", "phi4:14b", a file's name
  std::string repo;               // the Hugging Face repository read; empty otherwise
  std::string quant;              // a Hub GGUF's quantization label as its file's name writes it ("Q8_0"); else empty
  std::string revision;           // the repository's revision read; "" = the default branch
  std::string hf_file;            // the file read, when llama-server's tag match (-hfd REPO:QUANT) would take another
  std::string config_json;
  std::string quant_config_json;
  std::string config_name;
  std::optional<ImportedModel> imported;  // its files' headers; none for a config.json alone
};

}  // namespace vramfit
