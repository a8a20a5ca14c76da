"""Translation catalogues without GNU gettext: read ``.po`` files, write ``.mo`` files.

``make install`` (so ``make run`` and ``make test``) runs ``python config/catalogues.py``,
which compiles every ``locale/<lang>/LC_MESSAGES/*.po`` whose ``.mo`` is missing or older.
It needs nothing but the standard library (Django's ``compilemessages`` needs ``msgfmt``),
and imports no Django, so it runs before the settings exist. The ``.mo`` files are build
output and are not committed. The layout of a ``.mo`` file follows GNU gettext (the same as
CPython's ``Tools/i18n/msgfmt.py``): fuzzy entries and obsolete (``#~``) entries are left
out, a context is joined to its id with ``\\x04``, plural forms with ``\\x00``.

The completeness test (``tests/i18n``) reads catalogues through :func:`read_po` too.
"""

from __future__ import annotations

import ast
import os
import re
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCALE_DIR = ROOT / "locale"


@dataclass
class Entry:
    """One message of a ``.po`` file."""

    msgid: str = ""
    msgstr: list[str] = field(default_factory=list)
    msgid_plural: str | None = None
    msgctxt: str | None = None
    flags: set[str] = field(default_factory=set)
    references: list[str] = field(default_factory=list)
    line: int = 0

    @property
    def fuzzy(self) -> bool:
        """Whether a translator marked it as needing review (``#, fuzzy``)."""
        return "fuzzy" in self.flags

    @property
    def translated(self) -> bool:
        """Every form has a non-empty translation and the entry is not fuzzy."""
        return bool(self.msgstr) and all(self.msgstr) and not self.fuzzy


def _unquote(text: str, path: Path, line: int) -> str:
    text = text.strip()
    if not (len(text) >= 2 and text[0] == text[-1] == '"'):
        raise ValueError(f"{path}:{line}: expected a quoted string, got {text!r}")
    return ast.literal_eval(text)


def read_po(path: Path) -> list[Entry]:
    """Every live entry of ``path`` (header included, obsolete ``#~`` entries left out)."""
    entries: list[Entry] = []
    entry = Entry()
    section: tuple[str, int] | None = None  # ("msgid" | "msgid_plural" | ..., plural index)
    started = False

    def finish() -> None:
        nonlocal entry, started, section
        if started:
            entries.append(entry)
        entry, started, section = Entry(), False, None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
            continue
        if line.startswith("#~"):
            continue
        if line.startswith("#"):
            if started and section and section[0] == "msgstr":
                finish()
            if line.startswith("#,"):
                entry.flags.update(f.strip() for f in line[2:].split(",") if f.strip())
            elif line.startswith("#:"):
                entry.references.extend(line[2:].split())
            continue
        keyword, _, rest = line.partition(" ")
        if keyword == "msgctxt":
            if started and section and section[0] == "msgstr":
                finish()
            entry.msgctxt, section, started = _unquote(rest, path, number), ("msgctxt", 0), True
            entry.line = entry.line or number
        elif keyword == "msgid":
            if started and section and section[0] == "msgstr":
                finish()
            entry.msgid, section, started = _unquote(rest, path, number), ("msgid", 0), True
            entry.line = entry.line or number
        elif keyword == "msgid_plural":
            entry.msgid_plural, section = _unquote(rest, path, number), ("msgid_plural", 0)
        elif keyword == "msgstr":
            entry.msgstr, section = [_unquote(rest, path, number)], ("msgstr", 0)
        elif keyword.startswith("msgstr["):
            index = int(keyword[len("msgstr["):-1])
            while len(entry.msgstr) <= index:
                entry.msgstr.append("")
            entry.msgstr[index], section = _unquote(rest, path, number), ("msgstr", index)
        elif line.startswith('"') and section:
            more = _unquote(line, path, number)
            name, index = section
            if name == "msgstr":
                entry.msgstr[index] += more
            elif name == "msgid_plural":
                entry.msgid_plural = (entry.msgid_plural or "") + more
            else:
                setattr(entry, name, getattr(entry, name) + more)
        else:
            raise ValueError(f"{path}:{number}: cannot parse {raw!r}")
    finish()
    return entries


def mo_bytes(entries: list[Entry]) -> bytes:
    """The GNU ``.mo`` image of the translated, non-fuzzy entries (the header always)."""
    messages: dict[bytes, bytes] = {}
    for e in entries:
        if e.msgid and not e.translated:
            continue
        key = e.msgid if e.msgid_plural is None else f"{e.msgid}\x00{e.msgid_plural}"
        if e.msgctxt is not None:
            key = f"{e.msgctxt}\x04{key}"
        messages[key.encode()] = "\x00".join(e.msgstr).encode()
    keys = sorted(messages)
    ids = strs = b""
    offsets: list[tuple[int, int, int, int]] = []
    for k in keys:
        offsets.append((len(ids), len(k), len(strs), len(messages[k])))
        ids += k + b"\x00"
        strs += messages[k] + b"\x00"
    n = len(keys)
    keystart = 7 * 4 + 16 * n
    valuestart = keystart + len(ids)
    koffsets: list[int] = []
    voffsets: list[int] = []
    for o1, l1, o2, l2 in offsets:
        koffsets += [l1, o1 + keystart]
        voffsets += [l2, o2 + valuestart]
    header = struct.pack("Iiiiiii", 0x950412DE, 0, n, 7 * 4, 7 * 4 + n * 8, 0, 0)
    table = struct.pack(f"{len(koffsets)}i", *koffsets) + struct.pack(
        f"{len(voffsets)}i", *voffsets
    )
    return header + table + ids + strs


def compile_catalogues(locale_dir: Path = LOCALE_DIR, *, force: bool = False) -> list[Path]:
    """Compile each ``.po`` under ``locale_dir`` whose ``.mo`` is missing or older; the
    paths written."""
    written: list[Path] = []
    for po in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if not force and mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        data = mo_bytes(read_po(po))
        tmp = mo.with_suffix(".mo.tmp")
        tmp.write_bytes(data)
        tmp.replace(mo)
        written.append(mo)
    return written


# --- what the sources ask for (the completeness test compares it with the catalogues) -------

#: xgettext's keywords as Django's makemessages passes them: name -> (context, id, plural)
#: argument positions.
KEYWORDS: dict[str, tuple[int | None, int, int | None]] = {
    "_": (None, 0, None), "gettext": (None, 0, None), "gettext_noop": (None, 0, None),
    "gettext_lazy": (None, 0, None), "ngettext": (None, 0, 1), "ngettext_lazy": (None, 0, 1),
    "pgettext": (0, 1, None), "pgettext_lazy": (0, 1, None), "npgettext": (0, 1, 2),
    "npgettext_lazy": (0, 1, 2),
}
#: Directories never scanned (the same as ``make messages`` ignores).
IGNORED_DIRS = {".venv", "var", "tests", "node_modules", "locale", ".git", "__pycache__"}
_LITERAL = r"""u?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
_TEMPLATE_CALL = re.compile(
    r"(?<![\w.])(_|gettext|ngettext|pgettext|npgettext)\(((?:\s*" + _LITERAL + r"\s*,?)+)"
)

#: A message key: (context, msgid, plural).
Key = tuple[str | None, str, str | None]


def _key(name: str, args: list[str]) -> Key | None:
    ctx, ident, plural = KEYWORDS[name]
    need = max(i for i in (ctx, ident, plural) if i is not None)
    if len(args) <= need:
        return None
    return (
        args[ctx] if ctx is not None else None,
        args[ident],
        args[plural] if plural is not None else None,
    )


def python_messages(path: Path) -> set[Key]:
    """The messages a Python file marks with a gettext keyword and literal arguments."""
    found: set[Key] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else (
            node.func.attr if isinstance(node.func, ast.Attribute) else None)
        if name not in KEYWORDS:
            continue
        args: list[str] = []
        for arg in node.args:
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                break
            args.append(arg.value)
        key = _key(name, args)
        if key and key[1]:
            found.add(key)
    return found


def template_messages(path: Path) -> set[Key]:
    """The messages a template marks (``{% translate %}``, ``{% blocktranslate %}``, ``_()``),
    through Django's own ``templatize`` (what makemessages feeds to xgettext)."""
    from django.utils.translation.template import templatize

    found: set[Key] = set()
    for match in _TEMPLATE_CALL.finditer(templatize(path.read_text(encoding="utf-8"))):
        args = list(ast.literal_eval("(" + match.group(2).rstrip().rstrip(",") + ",)"))
        key = _key(match.group(1), args)
        if key and key[1]:
            found.add(key)
    return found


def source_messages(root: Path = ROOT) -> dict[Key, list[str]]:
    """Every message marked in the project's Python files and templates -> where."""
    found: dict[Key, list[str]] = {}
    paths: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in IGNORED_DIRS and not d.endswith(".egg-info"))
        paths.extend(Path(dirpath, name) for name in sorted(filenames))
    for path in paths:
        rel = path.relative_to(root)
        if path.suffix == ".py":
            keys = python_messages(path)
        elif path.suffix in (".html", ".txt") and "templates" in rel.parts:
            keys = template_messages(path)
        else:
            continue
        for key in keys:
            found.setdefault(key, []).append(str(rel))
    return found


def main(argv: list[str]) -> int:
    """``python config/catalogues.py [--force]``: compile the project's catalogues."""
    written = compile_catalogues(force="--force" in argv)
    for mo in written:
        print(f"compiled {mo.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
