// libFuzzer entry point: the answers a network hands over — the Hub's model API listing and Ollama's manifest —
// read and planned as a client would, for every way of naming a model.
#include <cstdint>      // std::uint8_t
#include <string_view>  // std::string_view

#include "formats/hub_repo.hpp"
#include "vramfit/lookup.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto listing = vramfit::read_repo_listing(text); listing.ok()) {
    const auto choices = vramfit::gguf_choices(listing.value());
    (void)vramfit::pick_gguf(choices, "");
  }
  for (const char* name : {"o/m", "o/m-GGUF:Q4_K_M", "https://huggingface.co/o/m/blob/main/a-Q8_0.gguf"})
    (void)vramfit::plan_hub_reads(name, "", text);
  (void)vramfit::plan_ollama_reads("phi4", text);
  (void)vramfit::lookup_failure(text);
  // The same bytes as a name a person typed.
  (void)vramfit::parse_hub_ref(text);
  (void)vramfit::parse_ollama_ref(text);
  return 0;
}
