#pragma once
// A model named the way people name it on the Hugging Face Hub or in Ollama's library, and what the Hub's model
// API says a repository holds: which files a client must read to cost it, bounded. No I/O: the CLI and the page
// fetch, this decides what and reads what came back.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "util/result.hpp"

namespace vramfit {

// "owner/name[:QUANT]", "https://huggingface.co/owner/name[/tree/rev | /blob/rev/file…]", "hf.co/owner/name[:QUANT]".
struct HubRef {
  std::string repo;      // "owner/name"
  std::string revision;  // "" = the repository's default branch (main)
  std::string quant;     // ":Q4_K_M" without the colon, as typed; "" = none asked
  std::string file;      // a file the link names (…/blob/main/model-Q4_K_M.gguf); "" = none
};

// "phi4", "qwen3:32b", "library/gemma3:27b", "registry.ollama.ai/library/phi4:14b", as `ollama pull` reads them.
struct OllamaRef {
  std::string ns = "library";
  std::string name;
  std::string tag = "latest";
};

// The name read as a Hub repository, when it has that shape (a slash between two parts of allowed characters, or
// a Hub URL); nothing otherwise. An error names what in the text is not a repository id.
std::optional<Result<HubRef>> parse_hub_ref(std::string_view text);
// The name read as an Ollama model: a bare name with an optional :tag, or namespace/name:tag.
std::optional<OllamaRef> parse_ollama_ref(std::string_view text);

struct RepoFile {
  std::string path;
  std::uint64_t size = 0;  // 0 when the listing gives none (asked without ?blobs=true)
  bool lfs = false;
};

// What /api/models/{repo}?blobs=true says (fields the Hub documents in its model API).
struct RepoListing {
  std::string id;
  std::string sha;
  std::string gated;        // "" = not gated; "auto" or "manual"
  std::string pipeline_tag;
  std::vector<RepoFile> files;
  std::vector<std::pair<std::string, std::uint64_t>> safetensors_params;  // per dtype, as the Hub counts them
  std::uint64_t safetensors_total = 0;
};

// The model API's JSON; an error names the field that has another shape.
Result<RepoListing> read_repo_listing(std::string_view json_text);

// The safetensors files transformers and vLLM load from a repository's top level: a sharded set
// (-0000k-of-0000n) when there is one, else model.safetensors, else every top-level file but adapters (LoRA).
// `left_out` names what else is there (consolidated.safetensors beside the shards, an adapter).
std::vector<RepoFile> safetensors_weights(const RepoListing& listing, std::vector<std::string>& left_out);

// One GGUF quantization a repository offers: its files (one, or a split's parts in order) and their summed size.
struct GgufChoice {
  std::string quant;  // the file name's quantization label, as written ("Q4_K_M", "UD-Q4_K_XL", "mxfp4")
  std::vector<RepoFile> files;
  std::uint64_t size = 0;
  unsigned parts_named = 1;  // the n of "-0000k-of-0000n": files.size() short of it leaves the size short
};

// The quantization label a .gguf file's name writes ("Q4_K_M/Qwen3-Q4_K_M-00001-of-00003.gguf" → "Q4_K_M",
// "…-UD-Q4_K_XL.gguf" → "UD-Q4_K_XL"): the GgufChoice's quant, and the tag llama.cpp's -hf / -hfd take back to it.
std::string gguf_quant_label(std::string_view path);

// A vision projector (llama.cpp's mmproj-*.gguf): loaded beside the model, not a quantization of it.
bool is_projector(std::string_view path);

// The file llama-server's -hf owner/name:QUANT (and -hfd) takes from a listing, by llama.cpp's own rule
// (common/download.cpp find_best_model): the first model file in listing order whose path holds QUANT followed by
// "." or "-", case-insensitive, a split's first part; "" when none does.
std::string llama_tag_pick(const RepoListing& listing, std::string_view quant);

// The .gguf weights a listing offers, grouped by quantization (a split's parts together), in listing order;
// projector files (mmproj) are not weights of the language model and are left out.
std::vector<GgufChoice> gguf_choices(const RepoListing& listing);

// Which choice `quant` names (case-insensitive, as llama.cpp's -hf compares; "Q4_K_XL" also names the only
// "UD-Q4_K_XL"), or with none asked, llama.cpp's default: Q4_K_M when present, else the first file. Index into
// `choices`; nothing when `quant` matches none.
enum class GgufPick { asked, default_q4_k_m, first_file };
std::optional<std::pair<std::size_t, GgufPick>> pick_gguf(const std::vector<GgufChoice>& choices,
                                                           std::string_view quant);

// One layer of an Ollama registry manifest (Docker's image manifest v2: mediaType, digest, size).
struct OllamaLayer {
  std::string media_type;  // "application/vnd.ollama.image.model", ".projector", ".params", ...
  std::string digest;      // "sha256:<64 hex>"
  std::uint64_t size = 0;
};
Result<std::vector<OllamaLayer>> read_ollama_manifest(std::string_view json_text);

}  // namespace vramfit
