#!/usr/bin/env bash
# The README's first command: install what is missing, build, and serve the page on localhost:8000.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build.sh
exec node scripts/serve.mjs dist "${PORT:-8000}"
