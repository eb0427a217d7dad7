#pragma once
// Models people name that the catalog does not hold: a Hugging Face Hub repository ("owner/name", a Hub link,
// "owner/name-GGUF:Q4_K_M") or an Ollama model ("phi4", "qwen3:32b"). The core does no I/O: these functions say
// what a client should fetch, bounded, and read what came back; the client then asks answer() (a config.json),
// answer_file() or answer_shards() (the headers it read) as for a file a person dropped. Every answer is JSON
// text with "ok" as elsewhere; each text for people is {"id", "args", "text"}.
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "vramfit/vramfit.hpp"  // Catalog

namespace vramfit {

// Whether `name` is written as a path to a model file or its folder rather than a model's name: it ends in .gguf,
// .safetensors or .json (any case), or starts with "/" or "./", "../" (a folder), and is no link. The one rule of
// every client; one that sees files (the CLI) also takes a name with a "/" that exists there.
bool names_a_path(std::string_view name);

// What `name` is: {"ok": true, "kind": "file", "name"} for a path (names_a_path: the client reads the file),
// {"ok": true, "kind": "preset", "model": id} (named by one of its Ollama tags, also "ollama": where the registry
// keeps that tag's file, as for an Ollama model, and "unread": the lookup's summary when it cannot be read and the
// preset answers), {"kind": "hub", "repo", "revision", "quant",
// "file", "listing": the model API's path (with ?blobs=true)}, or {"kind": "ollama", "namespace", "name", "tag",
// "manifest": the registry's path, "preset_error": why it is no preset}; "max_bytes" bounds the listing or manifest. `revision` (may be empty) is the Hub
// branch, tag or commit to read. An error names "model" and what was wrong with the name.
std::string read_model_name(const Catalog& catalog, std::string_view name, std::string_view revision);

// The files to read after the model API answered `listing_json` about `name`: {"ok": true, "kind": "gguf" |
// "safetensors" | "config", "repo", "commit", "gated", "texts": [{"role": "config" | "quant_config", "path",
// "max_bytes"}], "headers": [{"name", "path", "size"}] (read each from its start, first_read_bytes first, then as
// need_prefix_bytes asks, at most max_header_bytes), "gguf": {"quant", "picked", "choices", "hf_file": the file read
// when llama-server's -hf REPO:QUANT would take another}, "revision" (the one read; none for the default branch),
// "parameters", "summary", "notes"}. Paths are relative to the Hub's endpoint. A client hands "revision" and
// "hf_file" on as the request's model_revision and model_hf_file (a draft's: its read's "revision", "hf_file").
std::string plan_hub_reads(std::string_view name, std::string_view revision, std::string_view listing_json);

// The model blob to read after Ollama's registry answered `manifest_json` about `name`: {"ok": true, "name",
// "tag", "headers": [{"name", "path", "size"}], "projector": {"digest", "size"} or null, "summary"}.
std::string plan_ollama_reads(std::string_view name, std::string_view manifest_json);

// A failed read as a person should read it: `failure_json` is {"service": "hub" | "ollama", "name", "path",
// "status" (HTTP), "error_code" (the Hub's X-Error-Code), "token" (whether one was sent)} or {"service", "name",
// "failure": "timeout" | "offline" | "too_large" | "insecure_redirect" | "redirects" | "blocked" | "not_cached" |
// "bad_range" | "broken",
// "limit"}. Always {"ok": false, "error": {"field": "model", "message": {"id", "args", "text"}}}.
std::string lookup_failure(std::string_view failure_json);

}  // namespace vramfit
