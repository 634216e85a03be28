/**
 * The Python side of `benchcard perturb`, run by the system's python3: Python's own parser (ast)
 * finds definitions, import runs and test functions; its own lexer (tokenize) finds every name
 * to rename. Reads one JSON request on stdin, writes one JSON answer on stdout.
 *
 * Requests: {"op": "defs", "files": {path: text}} -> {"defs": [names defined at module level]}
 *           {"op": "apply", "files": {path: text}, "renames": {old: new}, "imports": bool,
 *            "tests": [paths whose test functions are reordered], "seed": int}
 *           -> {"files": {path: new text}, "changed": {path: [what changed]}}
 */
export const PYTHON_HELPER = String.raw`
import ast, builtins, io, json, keyword, random, sys, tokenize

def protected():
    names = set(dir(builtins)) | set(keyword.kwlist)
    for t in (str, bytes, list, dict, set, tuple, int, float, object, type, Exception):
        names |= set(dir(t))
    return names

def defs(files):
    found = set()
    for path, text in files.items():
        tree = ast.parse(text, path)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.add(target.id)
    bad = protected()
    return sorted(n for n in found if n not in bad and not n.startswith("_") and not n.startswith("test"))

def rename(text, renames):
    edits = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string in renames:
            edits.append((tok.start[0], tok.start[1], tok.end[1], renames[tok.string]))
    lines = text.splitlines(keepends=True)
    for row, start, end, new in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + new + line[end:]
    return "".join(lines), len(edits)

def permute(rng, items):
    if len(items) < 2:
        return list(items)
    for _ in range(10):
        out = list(items)
        rng.shuffle(out)
        if out != list(items):
            return out
    return list(reversed(items))

def shuffle_imports(text, rng):
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    runs, run = [], []
    for node in tree.body:
        single = isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno == node.end_lineno and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        if single and (not run or node.lineno == run[-1].lineno + 1):
            run.append(node)
        else:
            if len(run) > 1: runs.append(run)
            run = [node] if single else []
    if len(run) > 1: runs.append(run)
    moved = 0
    for run in runs:
        texts = [lines[n.lineno - 1] for n in run]
        for n, new in zip(run, permute(rng, texts)):
            lines[n.lineno - 1] = new if new.endswith("\n") else new + "\n"
        moved += len(run)
    return "".join(lines), moved

def reorder_tests(text, rng):
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    slots = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            slots.append((first, node.end_lineno))
    if len(slots) < 2:
        return text, 0
    blocks = ["".join(lines[a - 1:b]) for a, b in slots]
    blocks = [b if b.endswith("\n") else b + "\n" for b in blocks]
    out, last = [], 0
    for (a, b), block in zip(slots, permute(rng, blocks)):
        out.append("".join(lines[last:a - 1]))
        out.append(block)
        last = b
    out.append("".join(lines[last:]))
    return "".join(out), len(slots)

def apply(req):
    rng = random.Random(req["seed"])
    files, changed = {}, {}
    for path in sorted(req["files"]):
        text = req["files"][path]
        notes = []
        text, n = rename(text, req["renames"])
        if n: notes.append("renamed %d name(s)" % n)
        if req["imports"]:
            text, n = shuffle_imports(text, rng)
            if n: notes.append("shuffled %d import(s)" % n)
        if path in req["tests"]:
            text, n = reorder_tests(text, rng)
            if n: notes.append("reordered %d test(s)" % n)
        ast.parse(text, path)
        files[path] = text
        changed[path] = notes
    return {"files": files, "changed": changed}

req = json.load(sys.stdin)
try:
    out = {"defs": defs(req["files"])} if req["op"] == "defs" else apply(req)
except SyntaxError as e:
    out = {"error": "%s: line %s: %s" % (e.filename or "source", e.lineno, e.msg)}
except tokenize.TokenError as e:
    out = {"error": "cannot tokenize: %s" % (e.args[0],)}
json.dump(out, sys.stdout)
`;
