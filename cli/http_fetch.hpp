#pragma once
// The CLI's reads from the Hugging Face Hub and Ollama's registry, over libcurl: bounded in bytes and time,
// redirects only to https (or back to the endpoint the user chose), a token only to its own endpoint, and a cache of
// what was read (JSON and headers, never weights) so a model asked once answers offline.
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

namespace vramfit::cli {

struct FetchSettings {
  std::string token_origin;  // the origin HF_TOKEN may go to ("https://huggingface.co"); "" sends none
  std::string token;
  std::vector<std::string> trusted_origins;  // http origins redirects may go to: the endpoints the user set to http
  bool offline = false;        // HF_HUB_OFFLINE=1 / --offline: the cache only
  std::string cache_dir;       // "" = no cache
  long timeout_seconds = 10;   // HF_HUB_DOWNLOAD_TIMEOUT: waiting for the server's first byte and between bytes
};

struct Fetched {
  long status = 0;           // HTTP status of the last response; 0 when none came
  std::string body;          // at most the bytes asked for
  std::string error_code;    // the Hub's X-Error-Code header
  std::string error_message;  // its X-Error-Message ("Invalid credentials in Authorization header")
  std::string failure;       // "" or timeout, offline, too_large, insecure_redirect, redirects, bad_range, broken,
                             // not_cached
  bool from_cache = false;
  bool fell_back = false;    // the network failed (offline, timeout, broken) and an earlier read answered
};

// Whether a request to `url` carries the token: only to the token's own origin, never to a host a redirect names
// (the Hub's CDN links are signed; huggingface_hub drops the header there too).
bool sends_token(const FetchSettings& settings, const std::string& url);
// Whether a redirect to `url` is followed: https, or back to the endpoint the user set to plain http.
bool follows_redirect(const FetchSettings& settings, const std::string& url);

// GET `url`: its first `range_bytes` bytes by a Range request when that is not 0 (the body may be shorter at the
// end of the file; a server that ignores Range answers 200 and its first bytes are kept), else the whole body,
// refused past `max_bytes`. When the network fails, an earlier read of the same URL answers, flagged fell_back.
Fetched fetch(const FetchSettings& settings, const std::string& url, std::uint64_t range_bytes, std::uint64_t max_bytes,
              const char* accept = nullptr);

}  // namespace vramfit::cli
