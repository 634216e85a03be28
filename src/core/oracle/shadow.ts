import type { Change } from "../attempt/tamper.js";

/**
 * Module names a new file in the workspace must not take: Python's standard library
 * (`sys.stdlib_module_names` of CPython 3.11, private modules aside) and
 * pytest's own modules. A new `argparse.py` or `pytest.py` on the import path replaces the real
 * one for the test run; the diff would look harmless while the grader ran the agent's code.
 */
export const PYTHON_STDLIB: readonly string[] = [
  "__future__", "abc", "aifc", "antigravity", "argparse", "array", "ast", "asynchat", "asyncio",
  "asyncore", "atexit", "audioop", "base64", "bdb", "binascii", "bisect", "builtins", "bz2",
  "cProfile", "calendar", "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs", "codeop",
  "collections", "colorsys", "compileall", "concurrent", "configparser", "contextlib",
  "contextvars", "copy", "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime",
  "dbm", "decimal", "difflib", "dis", "distutils", "doctest", "email", "encodings", "ensurepip",
  "enum", "errno", "faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch", "fractions",
  "ftplib", "functools", "gc", "genericpath", "getopt", "getpass", "gettext", "glob", "graphlib",
  "grp", "gzip", "hashlib", "heapq", "hmac", "html", "http", "idlelib", "imaplib", "imghdr", "imp",
  "importlib", "inspect", "io", "ipaddress", "itertools", "json", "keyword", "lib2to3",
  "linecache", "locale", "logging", "lzma", "mailbox", "mailcap", "marshal", "math", "mimetypes",
  "mmap", "modulefinder", "msilib", "msvcrt", "multiprocessing", "netrc", "nis", "nntplib", "nt",
  "ntpath", "nturl2path", "numbers", "opcode", "operator", "optparse", "os", "ossaudiodev",
  "pathlib", "pdb", "pickle", "pickletools", "pipes", "pkgutil", "platform", "plistlib", "poplib",
  "posix", "posixpath", "pprint", "profile", "pstats", "pty", "pwd", "py_compile", "pyclbr",
  "pydoc", "pydoc_data", "pyexpat", "queue", "quopri", "random", "re", "readline", "reprlib",
  "resource", "rlcompleter", "runpy", "sched", "secrets", "select", "selectors", "shelve", "shlex",
  "shutil", "signal", "site", "smtpd", "smtplib", "sndhdr", "socket", "socketserver", "spwd",
  "sqlite3", "sre_compile", "sre_constants", "sre_parse", "ssl", "stat", "statistics", "string",
  "stringprep", "struct", "subprocess", "sunau", "symtable", "sys", "sysconfig", "syslog",
  "tabnanny", "tarfile", "telnetlib", "tempfile", "termios", "textwrap", "this", "threading",
  "time", "timeit", "tkinter", "token", "tokenize", "tomllib", "trace", "traceback", "tracemalloc",
  "tty", "turtle", "turtledemo", "types", "typing", "unicodedata", "unittest", "urllib", "uu",
  "uuid", "venv", "warnings", "wave", "weakref", "webbrowser", "winreg", "winsound", "wsgiref",
  "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile", "zipimport", "zlib", "zoneinfo",
];

export const PYTEST_MODULES: readonly string[] = ["pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "exceptiongroup", "tomli"];

const SHADOWED = new Set([...PYTHON_STDLIB, ...PYTEST_MODULES]);

/**
 * Added Python modules whose name shadows the standard library or the runner. A file counts
 * when its folder is not a package (no `__init__.py`): such a folder can be a root of the
 * import path (the workspace, or a test folder the runner prepends). Pure: `present` is every
 * path in the workspace after the agent.
 */
export function findShadowing(changes: readonly Change[], present: ReadonlySet<string>): string[] {
  const hits: string[] = [];
  for (const c of changes) {
    if (c.change !== "added") continue;
    const parts = c.path.split("/");
    const file = parts[parts.length - 1] as string;
    let module: string | undefined;
    let folder: string[];
    if (file === "__init__.py" && parts.length >= 2) {
      module = parts[parts.length - 2];
      folder = parts.slice(0, -2);
    } else if (/\.(py|pyc|so|pyd)$/.test(file)) {
      module = file.split(".")[0];
      folder = parts.slice(0, -1);
    } else continue;
    if (module === undefined || !SHADOWED.has(module)) continue;
    const init = [...folder, "__init__.py"].join("/");
    if (!present.has(init)) hits.push(c.path);
  }
  return hits.sort();
}
