export function parseEnv(text) {
  const out = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const at = line.indexOf("=");
    if (at < 0) continue;
    let value = line.slice(at + 1).trim();
    const quoted = /^(["']).*\1$/s.test(value) && value.length >= 2;
    if (quoted) value = value.slice(1, -1);
    out[line.slice(0, at).trim()] = value;
  }
  return out;
}
