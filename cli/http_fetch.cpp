#include "http_fetch.hpp"

#include <curl/curl.h>

#include <cstdio>      // std::snprintf
#include <filesystem>  // std::filesystem::create_directories
#include <fstream>     // std::ifstream, std::ofstream
#include <iterator>    // std::istreambuf_iterator
#include <memory>      // std::unique_ptr
#include <optional>    // std::optional
#include <string_view>  // std::string_view

namespace vramfit::cli {

namespace {

struct Transfer {
  std::string body;
  std::uint64_t cap = 0;
  bool over = false;
  std::string error_code, error_message;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (t->body.size() + n > t->cap) {
    t->body.append(data, static_cast<std::size_t>(t->cap - t->body.size()));  // up to the bound, no further
    t->over = true;
    return 0;  // aborts the transfer
  }
  t->body.append(data, n);
  return n;
}

// The value of `line` when it is the header `key` (lower case, with its colon), else nothing.
std::optional<std::string> header_value(std::string_view line, std::string_view key) {
  if (line.size() <= key.size()) return std::nullopt;
  std::string head(line.substr(0, key.size()));
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (head != key) return std::nullopt;
  line.remove_prefix(key.size());
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || line.back() == ' ')) line.remove_suffix(1);
  return std::string(line);
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  const std::string_view line(data, n);
  if (auto v = header_value(line, "x-error-code:")) t->error_code = *v;
  if (auto v = header_value(line, "x-error-message:")) t->error_message = *v;
  return n;
}

// FNV-1a: a stable file name for a URL and range in the cache.
std::string cache_key(const std::string& url, std::uint64_t range) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : url + "#" + std::to_string(range)) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::optional<std::string> cached(const FetchSettings& s, const std::string& key) {
  if (s.cache_dir.empty()) return std::nullopt;
  std::ifstream in(s.cache_dir + "/" + key, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void remember(const FetchSettings& s, const std::string& key, const std::string& body) {
  if (s.cache_dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(s.cache_dir, ec);
  const std::string path = s.cache_dir + "/" + key, partial = path + ".part";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    if (!out) return;
  }
  std::filesystem::rename(partial, path, ec);  // whole or not at all: a later offline read never sees half a file
}

bool starts_with_origin(const std::string& url, const std::string& origin) {
  return !origin.empty() && url.size() > origin.size() && url.compare(0, origin.size(), origin) == 0 &&
         url[origin.size()] == '/';
}

std::string failure_of(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT: return "timeout";
    case CURLE_FILESIZE_EXCEEDED: return "too_large";
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT: return "offline";
    default: return "broken";
  }
}

// One request, no redirect followed: the answer's status, body (bounded) and where it points next.
struct Hop {
  Fetched got;
  std::string next;
};

Hop one_hop(CURL* curl, const FetchSettings& settings, const std::string& url, std::uint64_t range_bytes,
            std::uint64_t max_bytes, const char* accept) {
  Hop hop;
  Transfer t;
  t.cap = range_bytes ? range_bytes : max_bytes;
  curl_slist* headers = nullptr;
  if (sends_token(settings, url))
    headers = curl_slist_append(headers, ("Authorization: Bearer " + settings.token).c_str());
  if (accept) headers = curl_slist_append(headers, (std::string("Accept: ") + accept).c_str());
  const std::string range = range_bytes ? "0-" + std::to_string(range_bytes - 1) : "";
  curl_easy_reset(curl);  // the same handle keeps its connections open for the next file
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (range_bytes) curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
  // A Content-Length past the bound is refused before any of the body is read.
  else curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_bytes));
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);  // each hop is checked by the caller
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, settings.timeout_seconds);
  // A server that accepts and then sends nothing is cut off after the same wait, and any read after six.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, settings.timeout_seconds);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, settings.timeout_seconds * 6);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "vramfit");
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &hop.got.status);
  char* location = nullptr;
  curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location);
  hop.next = location ? location : "";
  curl_slist_free_all(headers);
  hop.got.error_code = t.error_code;
  hop.got.error_message = t.error_message;
  // A server that ignores Range answers 200 with the whole file: its first bytes are the part asked for.
  const bool range_ignored = range_bytes && hop.got.status == 200 && t.over && t.body.size() == range_bytes;
  if (t.over && !range_ignored) hop.got.failure = "too_large";
  else if (code != CURLE_OK && !range_ignored) hop.got.failure = failure_of(code);
  hop.got.body = std::move(t.body);
  return hop;
}

Fetched from_cache(const FetchSettings& settings, const std::string& key, std::string failure) {
  Fetched out;
  if (auto body = cached(settings, key)) {
    out.status = 200;
    out.body = std::move(*body);
    out.from_cache = true;
    out.fell_back = !settings.offline;
  } else {
    out.failure = std::move(failure);
  }
  return out;
}

}  // namespace

bool sends_token(const FetchSettings& settings, const std::string& url) {
  return !settings.token.empty() && starts_with_origin(url, settings.token_origin);
}

bool follows_redirect(const FetchSettings& settings, const std::string& url) {
  if (url.starts_with("https://")) return true;
  for (const auto& origin : settings.trusted_origins)
    if (starts_with_origin(url, origin)) return true;
  return false;
}

Fetched fetch(const FetchSettings& settings, const std::string& first_url, std::uint64_t range_bytes,
              std::uint64_t max_bytes, const char* accept) {
  const std::string key = cache_key(first_url, range_bytes);
  if (settings.offline) return from_cache(settings, key, "not_cached");
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  // One handle for the whole run: a repository's files share its connections (and TLS sessions).
  static const std::unique_ptr<CURL, void (*)(CURL*)> handle(initialised ? curl_easy_init() : nullptr,
                                                             curl_easy_cleanup);
  if (!handle) return Fetched{0, "", "", "", "offline"};
  std::string url = first_url;
  for (int hop = 0; hop < 6; ++hop) {
    Hop h = one_hop(handle.get(), settings, url, range_bytes, max_bytes, accept);
    const std::string& failure = h.got.failure;
    if (failure == "offline" || failure == "timeout" || failure == "broken") {
      Fetched earlier = from_cache(settings, key, failure);
      return earlier.from_cache ? earlier : h.got;
    }
    if (!failure.empty()) return h.got;
    if (h.got.status >= 300 && h.got.status < 400 && !h.next.empty()) {
      if (!follows_redirect(settings, h.next)) return Fetched{h.got.status, "", "", "", "insecure_redirect"};
      url = h.next;
      continue;
    }
    if (h.got.status == 200 || h.got.status == 206) remember(settings, key, h.got.body);
    return h.got;
  }
  return Fetched{0, "", "", "", "redirects"};
}

}  // namespace vramfit::cli
