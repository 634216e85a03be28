#!/bin/sh
# benchcard adapter for the Codex CLI (npm: @openai/codex, pinned in package.json here).
# benchcard's sandbox is the boundary, so Codex's own sandbox and approvals are off; the model
# is reached only through benchcard's gateway (Responses API), named in BENCHCARD_MODEL_*.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export CODEX_HOME="$HOME/.codex"
mkdir -p "$CODEX_HOME"
exec node "$here/node_modules/@openai/codex/bin/codex.js" exec \
  --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox \
  -c model_provider=benchcard \
  -c "model_providers.benchcard={name=\"benchcard\",base_url=\"$BENCHCARD_MODEL_BASE_URL\",env_key=\"OPENAI_API_KEY\",wire_api=\"responses\",request_max_retries=0,stream_max_retries=0}" \
  -m "$BENCHCARD_MODEL" "$(cat "$BENCHCARD_PROMPT_FILE")" </dev/null
