#pragma once
// `vramfit mcp`: the calculator as a Model Context Protocol server over stdio, for an assistant to call. JSON-RPC 2.0
// messages, one per line (the protocol's stdio transport): initialize, ping, tools/list and tools/call; each tool is
// one of the core's questions, its input schema made from the request's inputs table, its result the answer's JSON.
#include <iosfwd>  // std::istream, std::ostream
#include <string>  // std::string

#include "model_lookup.hpp"    // LookupSettings
#include "vramfit/vramfit.hpp"

namespace vramfit::cli {

// The reply to one message (a line of JSON text), or "" where none is due (a notification).
std::string mcp_reply(const Catalog& catalog, const std::string& message, const LookupSettings& lookup);

// Serves `in` until it ends, a reply per request on `out`.
void serve_mcp(const Catalog& catalog, std::istream& in, std::ostream& out, const LookupSettings& lookup);

}  // namespace vramfit::cli
