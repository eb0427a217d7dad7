#pragma once
// Ollama from 0.30 as its server settles a request before it starts llama-server
// (memory/engines/ollama_server.hpp): the context it picks and caps, flash attention left to llama.cpp, and what the
// fit plan leaves to say.
#include "questions/evaluate.hpp"

namespace vramfit {

// num_ctx: the request's, else the GPU's tier (4096 without a GPU, said in a note); at least 2048 for a multimodal
// model; at most the model's training context. Flash attention "auto" unless the request sets it. Notes go to
// name_notes. Does nothing for another engine or version.
void resolve_ollama_server(const Request& request, ResolvedRequest& out);

// What the fit plan leaves to say under Ollama: a plan that does not fit (Ollama's retry at a lower context) and the
// room --fit keeps for a vision projector on the GPU.
void add_ollama_server_notes(Report& report, const ResolvedRequest& scenario);

}  // namespace vramfit
