// The CLI's network rules that hold whatever the server does: where a token may go, which redirects are followed.
#include <doctest/doctest.h>

#include "http_fetch.hpp"

using vramfit::cli::FetchSettings;

TEST_CASE("HF_TOKEN goes only to the Hub's own origin, never to the CDN a redirect names") {
  FetchSettings s;
  s.token = "hf_x";
  s.token_origin = "https://huggingface.co";
  CHECK(vramfit::cli::sends_token(s, "https://huggingface.co/api/models/o/m"));
  CHECK_FALSE(vramfit::cli::sends_token(s, "https://cas-bridge.xethub.hf.co/xet-bridge-us/abc"));
  CHECK_FALSE(vramfit::cli::sends_token(s, "https://huggingface.co.evil.example/x"));  // a longer host, not the origin
  CHECK_FALSE(vramfit::cli::sends_token(s, "http://huggingface.co/x"));
  s.token.clear();
  CHECK_FALSE(vramfit::cli::sends_token(s, "https://huggingface.co/api/models/o/m"));
}

TEST_CASE("redirects are followed to https only, or back to an endpoint the user set to plain http") {
  FetchSettings s;
  CHECK(vramfit::cli::follows_redirect(s, "https://cdn-lfs.hf.co/repos/x"));
  CHECK_FALSE(vramfit::cli::follows_redirect(s, "http://cdn-lfs.hf.co/repos/x"));
  s.trusted_origins = {"http://127.0.0.1:8765"};
  CHECK(vramfit::cli::follows_redirect(s, "http://127.0.0.1:8765/cdn/abc"));
  CHECK_FALSE(vramfit::cli::follows_redirect(s, "http://127.0.0.1:9999/cdn/abc"));
}
