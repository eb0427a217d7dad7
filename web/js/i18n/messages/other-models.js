// Templates for the core's messages of one area, merged into MESSAGES by ../messages.js (same rules as there).
// This area: other models kept loaded on the same GPU (the `also` input): their breakdown lines, notes and refusals.
export default {
  en: {},  // none of its own: a byte count's English comes from core/ (../messages.js)
  de: {
    "explain.other_model.source_vllm": "vLLM-Dokumentation, --gpu-memory-utilization: eine Grenze je Instanz (zwei Instanzen auf einer GPU mit je 0.5); vllm/v1/worker/utils.py request_memory (PR #19312, 0.9.1) prüft den Anteil der nächsten gegen den frei gebliebenen Speicher",
    "explain.other_model.source_sglang": "SGLang model_runner_kv_cache_mixin.py _profile_available_bytes: Jeder Server bemisst seinen Pool nach dem freien Speicher, den er misst; ein zuvor gestarteter Server ist für den nächsten belegter Speicher",
    "explain.other_model.source_llamacpp": "llama.cpp: Jeder llama-server-Prozess belegt eigene Gewichte, einen eigenen KV-Cache und eigene Rechenpuffer; --fit aus common/fit.cpp sieht sie als belegten Speicher (cudaMemGetInfo)",
    "explain.other_model.source_ollama": "Ollama 0.33 server/sched.go: updateFreeSpace zieht den GPU-Speicher jedes geladenen Runners vom freien Speicher der GPU ab, bevor das nächste Modell lädt",
    "explain.other_model.source_mlx": "MLX: Jeder Prozess belegt den einen gemeinsamen Speicher des Mac, unter demselben Wired-Limit (mlx-lm generate.py wired_limit)",
    "explain.other_model.source_transformers": "PyTorch: Jeder Prozess hat seinen eigenen CUDA-Kontext und Caching-Allocator; get_max_memory von accelerate nimmt den freien Speicher aus torch.cuda.mem_get_info, nach den anderen Prozessen",
    "explain.other_model.formula_vllm": "ein weiterer vLLM-Server hält sein Budget, floor(gpu_memory_utilization × Gesamtspeicher), eingestellt auf den kleinsten Anteil, der seine Gewichte, die Spitze der Aktivierungen, den Speicher außerhalb von PyTorch und eine Sequenz seines Kontexts fasst, dazu CUDA-Graphen außerhalb des Budgets und sein eigener CUDA-Kontext",
    "explain.other_model.values_vllm": "{name}, {context} Tokens: floor({util} × {total}) + {graphs} + 512 MiB CUDA-Kontext = {amount} B",
    "explain.other_model.formula_ollama": "ein weiteres Modell, das Ollama geladen hält: Gewichte, KV-Cache und Rechenpuffer seines Runners auf der GPU, allein geschätzt mit eigenem Kontext",
    "explain.other_model.formula_sglang": "ein weiterer SGLang-Server: seine Gewichte und sein KV-Pool (mem_fraction_static des Speichers, den er frei vorfand) und seine Aktivierungen, allein auf dieser GPU geschätzt",
    "explain.other_model.formula_process": "ein weiterer Prozess mit eigenem Modell: seine Gewichte, sein KV-Cache, seine Puffer und sein CUDA-Kontext, allein geschätzt mit eigenem Kontext",
    "explain.other_model.values": "{name}, {context} Tokens: {amount} B",
    "other_models.loaded_last": "{names} zuerst geladen, jedes allein mit eigenem Kontext geschätzt und sein Speicher auf jeder GPU als belegt gezählt; dieses Modell lädt zuletzt, in den Speicher, den sie übrig lassen.",
    "other_models.ollama_max_loaded": "Ollama hält höchstens 3 Modelle je GPU geladen, wenn OLLAMA_MAX_LOADED_MODELS nichts anderes sagt: Bei {count} entlädt es zuerst das am längsten nicht genutzte. Der Befehl setzt OLLAMA_MAX_LOADED_MODELS={count}.",
    "other_models.ollama_evicts": "Ollama würde die anderen Modelle entladen, um dieses zu laden: Neben ihnen sind {free_bytes} frei, und ein Modell, das neben anderen lädt, muss ganz auf die GPU passen, mit vorhergesagten {predicted_bytes} von höchstens 80 % des freien Speichers.",
    "other_models.ollama_keep_alive": "Ollama entlädt ein Modell 5 Minuten nach seiner letzten Anfrage (OLLAMA_KEEP_ALIVE); der Befehl setzt OLLAMA_KEEP_ALIVE=-1, damit alle geladen bleiben.",
    "other_models.sglang_fraction": "Jeder weitere SGLang-Server ist mit seinem Standardwert für mem_fraction_static gezählt, einem Anteil des Speichers, den er frei vorfand; mit kleinerem --mem-fraction-static gestartet, lässt er diesem mehr.",
    "other_models.command_order": "Die Befehlszeilen starten zuerst die anderen Modelle, jedes in einer eigenen Shell und jedes, sobald das vorige geladen ist; die letzte Zeile startet dieses Modell.",
    "also.error": "{name}: {reason}",
    "also.needs_gpu": "Weitere Modelle auf der GPU brauchen mit dieser Engine eine gewählte GPU: Jeder Server nimmt sich einen Anteil ihres Speichers",
    "also.vllm_no_share": "{name}: Kein gpu_memory_utilization bis 1.0 fasst es mit einer Sequenz seines Kontexts auf dieser GPU",
    "also.does_not_fit": "{name} braucht allein {amount_bytes}, mehr als eine {gpu} fasst",
    "input.also_model": "„{given}“ nennt kein Modell: Geben Sie die ID eines Modells aus der Liste, ein Hugging-Face-Repository, ein Ollama-Modell oder eine Modelldatei an, wahlweise mit dem Kontext nach @, etwa qwen3-0.6b@8192",
    "input.also_context": "„{given}“: Der Kontext nach @ muss eine ganze Zahl von Tokens zwischen 1 und {max} sein, etwa 8192 oder 8k",
    "input.also_count": "höchstens {max} weitere Modelle; angegeben: {count}",
  },
};
