#include "http_fetch.hpp"

#include <curl/curl.h>

#include <cstdio>      // std::snprintf
#include <filesystem>  // std::filesystem::create_directories
#include <fstream>     // std::ifstream, std::ofstream
#include <iterator>    // std::istreambuf_iterator
#include <string_view>  // std::string_view

namespace vramfit::cli {

namespace {

struct Transfer {
  std::string body;
  std::uint64_t cap = 0;
  bool over = false;
  std::string error_code;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (t->body.size() + n > t->cap) {
    t->over = true;
    return 0;  // aborts the transfer: nothing past the bound is read
  }
  t->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  std::string_view line(data, n);
  constexpr std::string_view key = "x-error-code:";
  if (line.size() > key.size()) {
    std::string head(line.substr(0, key.size()));
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (head == key) {
      line.remove_prefix(key.size());
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || line.back() == ' ')) line.remove_suffix(1);
      t->error_code = std::string(line);
    }
  }
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

}  // namespace

bool sends_token(const FetchSettings& settings, const std::string& url) {
  return !settings.token.empty() && starts_with_origin(url, settings.token_origin);
}

bool follows_redirect(const FetchSettings& settings, const std::string& url) {
  return url.starts_with("https://") || starts_with_origin(url, settings.trusted_origin);
}

Fetched fetch(const FetchSettings& settings, const std::string& first_url, std::uint64_t range_bytes,
              std::uint64_t max_bytes, const char* accept) {
  Fetched out;
  const std::string key = cache_key(first_url, range_bytes);
  if (settings.offline) {
    if (auto body = cached(settings, key)) {
      out.status = 200;
      out.body = std::move(*body);
      out.from_cache = true;
    } else {
      out.failure = "not_cached";
    }
    return out;
  }
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!initialised) {
    out.failure = "offline";
    return out;
  }
  std::string url = first_url;
  for (int hop = 0; hop < 6; ++hop) {
    CURL* curl = curl_easy_init();
    if (!curl) {
      out.failure = "offline";
      return out;
    }
    Transfer t;
    t.cap = range_bytes ? range_bytes : max_bytes;
    curl_slist* headers = nullptr;
    if (sends_token(settings, url))
      headers = curl_slist_append(headers, ("Authorization: Bearer " + settings.token).c_str());
    if (accept) headers = curl_slist_append(headers, (std::string("Accept: ") + accept).c_str());
    const std::string range = "0-" + std::to_string(range_bytes - 1);
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (range_bytes) curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);  // each hop is checked below
    // A Content-Length past the bound is refused before any of the body is read.
    if (!range_bytes) curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_bytes));
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
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    char* location = nullptr;
    curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location);
    const std::string next = location ? location : "";
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    out.status = status;
    out.error_code = t.error_code;
    if (t.over) {
      // A server that ignores Range sends the whole file: that is not the part asked for.
      out.failure = range_bytes && status == 200 ? "bad_range" : "too_large";
      return out;
    }
    if (code != CURLE_OK) {
      out.failure = failure_of(code);
      return out;
    }
    if (status >= 300 && status < 400 && !next.empty()) {
      if (!follows_redirect(settings, next)) {
        out.failure = "insecure_redirect";
        return out;
      }
      url = next;
      continue;
    }
    if (range_bytes && status != 206 && status != 200 && status < 400) {
      out.failure = "bad_range";
      return out;
    }
    out.body = std::move(t.body);
    if (status == 200 || status == 206) remember(settings, key, out.body);
    return out;
  }
  out.failure = "redirects";
  return out;
}

}  // namespace vramfit::cli
