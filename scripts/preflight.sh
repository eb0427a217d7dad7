#!/usr/bin/env bash
# The preflight action's step (action.yml): the CLI's --check decides the exit status; its --json answer gives the
# step's outputs. Inputs come from the environment (VRAMFIT, MODEL, GPU, GPUS, ENGINE, CONTEXT, WEIGHTS).
set -uo pipefail
args=(--model "$MODEL" --gpu "$GPU" --engine "$ENGINE")
[[ "${GPUS:-1}" != 1 ]] && args+=(--gpus "$GPUS")
[[ -n "${CONTEXT:-}" ]] && args+=(--context "$CONTEXT")
[[ -n "${WEIGHTS:-}" ]] && args+=(--weights "$WEIGHTS")
"$VRAMFIT" "${args[@]}" --check
status=$?
if [[ $status -ne 2 ]]; then
  answer=$("$VRAMFIT" "${args[@]}" --json) || exit 2
  out=${GITHUB_OUTPUT:-/dev/stdout}
  node -e '
    const a = JSON.parse(process.argv[1]);
    const row = a.gpus.find((g) => g.id === a.verdict.gpu);
    const free = a.per_gpu ? a.per_gpu.free_bytes : row ? row.free_bytes : "";
    const command = (a.command && a.command.text) || "";
    process.stdout.write(`verdict=${a.verdict.kind}\ncertainty=${a.verdict.certainty}\nfree-bytes=${free}\n` +
      `command=${command.replace(/\n/g, " ")}\n`);
  ' "$answer" >> "$out"
fi
exit $status
