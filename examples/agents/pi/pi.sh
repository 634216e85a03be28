#!/bin/sh
# benchcard adapter for the pi coding agent (npm: @mariozechner/pi-coding-agent, pinned in
# package.json here). benchcard runs it inside the sandbox; the model is reached only through
# benchcard's gateway, whose address and stand-in key arrive in BENCHCARD_MODEL_* variables.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case "$BENCHCARD_MODEL_API" in
  openai-chat) api=openai-completions; url=$BENCHCARD_MODEL_BASE_URL ;;
  openai-responses) api=openai-responses; url=$BENCHCARD_MODEL_BASE_URL ;;
  anthropic-messages) api=anthropic-messages; url=$ANTHROPIC_BASE_URL ;;
  *) echo "pi adapter: unknown API $BENCHCARD_MODEL_API" >&2; exit 2 ;;
esac
# pi reads its providers from its own folder: a fresh one per attempt, under the sandbox's home.
export PI_CODING_AGENT_DIR="$HOME/.pi/agent" PI_OFFLINE=1 PI_TELEMETRY=0
mkdir -p "$PI_CODING_AGENT_DIR"
cat > "$PI_CODING_AGENT_DIR/models.json" <<JSON
{ "providers": { "benchcard": {
  "baseUrl": "$url", "api": "$api", "apiKey": "$BENCHCARD_MODEL_API_KEY",
  "compat": { "supportsDeveloperRole": false, "supportsReasoningEffort": false },
  "models": [ { "id": "$BENCHCARD_MODEL", "reasoning": false } ] } } }
JSON
exec node "$here/node_modules/@mariozechner/pi-coding-agent/dist/cli.js" \
  --print --offline --no-session --no-extensions --no-skills --no-prompt-templates --no-context-files \
  --provider benchcard --model "$BENCHCARD_MODEL" --tools read,bash,edit,write,ls \
  "$(cat "$BENCHCARD_PROMPT_FILE")"
