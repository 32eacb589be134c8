#!/usr/bin/env python3
"""Writes Sources/CMapbookLazy/lazy_<lib>.c: for every function of PROJ, Cairo, libarchive,
libxml2, Zstandard and libqrencode that the Swift code calls, a definition with the header's own prototype that loads the library with dlopen on
first use and calls the real function through dlsym.

    python3 tools/lazy/generate.py        (run again when the code calls a new function of one)

Why: linked normally, PROJ (with curl, GnuTLS, Kerberos, LDAP, TIFF) and Cairo (with X11, xcb,
fontconfig, freetype) are 49 of the 67 shared libraries every `mapbook` command loads at start,
about 9 ms of a 20 ms `mapbook --version` (docs/PERFORMANCE.md); libarchive (with nettle, acl,
lzma, zstd, lz4, bz2) is another 7. Loaded on first use, only the commands that reproject, draw
or read a zipped Shapefile pay for them. Zstandard (delta updates) and libqrencode (the QR code
`mapbook serve` prints) have no dependencies of their own but still cost every start its
loading: 0.1-0.2 ms of a 2.2 ms `mapbook --version` (issue 36).
"""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBRARIES = [
    # (name, headers, symbol prefix, library file for the SONAME)
    ("proj", ["proj.h"], "proj_", "libproj.so"),
    ("cairo", ["cairo/cairo.h", "cairo/cairo-svg.h", "cairo/cairo-pdf.h"], "cairo_", "libcairo.so"),
    ("archive", ["archive.h", "archive_entry.h"], "archive_", "libarchive.so"),
    # libxml2 (with ICU and liblzma) for reading and writing XML (.mmap item info, GPX).
    ("xml", ["libxml/parser.h", "libxml/tree.h", "libxml/xmlerror.h", "libxml/xmlsave.h"], "xml", "libxml2.so"),
    # Zstandard for the patches of updates by delta; libqrencode for `mapbook serve`'s QR code.
    ("zstd", ["zstd.h"], "ZSTD_", "libzstd.so"),
    ("qrencode", ["qrencode.h"], "QRcode_", "libqrencode.so"),
]

# What a library exports as a variable rather than a function, reached through a function
# of our own that CLibXML2's shim declares: libxml2's `xmlFree` is a function pointer.
EXTRA = {
    "xml": [
        "void mapbook_xml_free(void *pointer) {",
        "    static void *_Atomic cached;",
        "    void *f = cached;",
        "    if (!f) cached = f = xml_symbol(\"xmlFree\");",
        "    (*(xmlFreeFunc *)f)(pointer);",
        "}",
        "",
    ],
}

# Headers outside the default search path.
INCLUDES = ["-I/usr/include/libxml2"]


def used_functions(prefix):
    """The functions with `prefix` called from Swift, or from the hand-written C beside the
    generated files (mapbook_*.c: text through Pango draws with Cairo)."""
    names = set()
    for folder, _, files in os.walk(os.path.join(ROOT, "Sources")):
        for f in files:
            if f.endswith(".swift") or (f.startswith("mapbook_") and f.endswith(".c")):
                text = open(os.path.join(folder, f), encoding="utf-8").read()
                names.update(re.findall(r"\b(" + re.escape(prefix) + r"[A-Za-z0-9_]+)\(", text))
    # `cairo_rectangle_t(x: ...)` is a struct's initialiser in Swift, not a call.
    return sorted(n for n in names if not n.endswith("_t"))


def soname(library):
    for folder in ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]:
        path = os.path.join(folder, library)
        if os.path.exists(path):
            out = subprocess.run(["objdump", "-p", path], capture_output=True, text=True).stdout
            m = re.search(r"SONAME\s+(\S+)", out)
            if m:
                return m.group(1)
    sys.exit(f"generate.py: cannot find {library}; install its -dev package (tools/setup)")


def prototypes(headers):
    includes = "".join(f"#include <{h}>\n" for h in headers)
    text = subprocess.run(["gcc", "-E", "-P", "-xc", *INCLUDES, "-"], input=includes, capture_output=True, text=True, check=True).stdout
    text = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", text)
    text = " ".join(text.split())
    return text


def declaration(text, name):
    # The return type runs from the end of the previous declaration to the name.
    m = re.search(r"(?:^|[;}])\s*((?:extern\s+)?[A-Za-z_][\w\s\*]*?[\s\*])" + re.escape(name) + r"\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*;", text)
    if not m:
        sys.exit(f"generate.py: no prototype for {name}")
    ret = m.group(1).replace("extern", "").strip()
    params = m.group(2).strip()
    return ret, params


QUALIFIERS = {"const", "volatile", "struct", "enum", "union", "unsigned", "signed", "long", "short", "restrict", "__restrict"}
# C's own type words: never a parameter's name.
BUILTIN = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool"}


def named_parameters(params):
    """The parameters with a name for each: the headers leave some out (`struct archive *`)."""
    if params in ("", "void"):
        return [], []
    declared, names = [], []
    for i, p in enumerate(params.split(",")):
        p = p.strip()
        if p == "...":
            sys.exit("generate.py: variadic functions cannot be forwarded")
        tokens = re.findall(r"\w+|\*", re.sub(r"\[\s*\]$", "", p))
        # Named when it ends in a word that is not part of a type (`unsigned long long size`
        # is named, `unsigned long long` is not) after at least one word of its type.
        types = [t for t in tokens[:-1] if t != "*" and t not in QUALIFIERS - BUILTIN]
        if tokens and tokens[-1] != "*" and tokens[-1] not in QUALIFIERS | BUILTIN and types:
            name = re.search(r"(\w+)\s*(\[\s*\])?$", p).group(1)
        else:
            name = f"a{i}"
            p = f"{p} {name}"
        declared.append(p)
        names.append(name)
    return declared, names


def main():
    for name, headers, prefix, library in LIBRARIES:
        text = prototypes(headers)
        so = soname(library)
        out = [
            f"// Generated by tools/lazy/generate.py from {', '.join(f'<{h}>' for h in headers)}; do not edit.",
            f"// {name}: loaded from {so} on the first call to any of these functions.",
            "#include \"mapbook_lazy.h\"",
            *[f"#include <{h}>" for h in headers],
            "",
            f"static void *{name}_symbol(const char *symbol) {{",
            f"    static void *handle;",
            f"    return mapbook_lazy_symbol(&handle, \"{so}\", \"{name}\", symbol);",
            "}",
            "",
        ]
        for fn in used_functions(prefix):
            # A struct's initialiser in Swift (`ZSTD_inBuffer(src:size:pos:)`), not a call.
            if re.search(r"}\s*" + re.escape(fn) + r"\s*;", text):
                continue
            ret, params = declaration(text, fn)
            declared, names = named_parameters(params)
            params = ", ".join(declared)
            args = ", ".join(names)
            pointer = f"{ret} (*)({params or 'void'})"
            call = f"(({pointer})f)({args})"
            body = f"    {call};" if ret == "void" else f"    return {call};"
            out += [
                f"{ret} {fn}({params or 'void'}) {{",
                f"    static void *_Atomic cached;",
                f"    void *f = cached;",
                f"    if (!f) cached = f = {name}_symbol(\"{fn}\");",
                body,
                "}",
                "",
            ]
        out += EXTRA.get(name, [])
        path = os.path.join(ROOT, "Sources", "CMapbookLazy", f"lazy_{name}.c")
        open(path, "w").write("\n".join(out))
        print(f"{path}: {len(used_functions(prefix))} functions from {so}")


main()
