#!/usr/bin/env python3
"""check_layers.py - the library's folders must form layers: no cycle of
#includes or of calls between the folders of src/ (docs/ARCHITECTURE.md);
and inside the folders of FILE_LAYERS (src/template/) the files must form
layers too: no cycle of calls between two or more of their files.

  check_layers.py SRC_DIR OBJ_DIR NM [OBJECT...]

Includes are read from every .c/.h under SRC_DIR (src/cli/ is the program,
not the library, and is skipped; gguflint.h at the top is the base every
layer may include). Calls come from the OBJECTs given (the CMake object
library's current objects; without any, every .o under OBJ_DIR, which in an
old build directory may include objects of moved or deleted sources): nm
gives each object's defined and undefined symbols, and an undefined symbol
defined in another folder's object is an edge. An object's folder is its
path below OBJ_DIR. Prints the folder graph, and fails (exit 1) naming the
files that make each cycle. Then, for each folder of FILE_LAYERS, the same
for its files (calls only: its files share one state header, so their
#includes say nothing of who calls whom): the files in layers, those that
call nothing of the folder first, and each cycle with the calls that make
it. Uses only the standard library."""
import os
import re
import subprocess
import sys

# folders whose files are ordered too
FILE_LAYERS = ('template',)

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(rel):
    parts = rel.split('/')
    return parts[0] if len(parts) > 1 else None


def include_edges(src):
    edges = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            a = folder_of(rel)
            if a is None or a == 'cli':
                continue
            with open(path, encoding='utf-8', errors='replace') as fh:
                text = fh.read()
            for inc in INCLUDE.findall(text):
                b = folder_of(os.path.normpath(inc)) if '/' in inc else a
                if b and b != a and os.path.exists(os.path.join(src, inc)):
                    edges.setdefault((a, b), []).append(f'{rel} includes {inc}')
    return edges


def object_files(objdir, given):
    if given:
        return [os.path.abspath(p) for p in given if p.endswith('.o')]
    return [os.path.join(root, f) for root, _, files in os.walk(objdir)
            for f in files if f.endswith('.o')]


def symbols(objdir, nm, given):
    """(defined, undefined): symbol -> (folder, object) for every global
    symbol an object defines, and (folder, object, symbol) for every one it
    uses."""
    defined, undefined = {}, []
    objdir = os.path.abspath(objdir)
    for path in object_files(objdir, given):
        rel = os.path.relpath(path, objdir)
        if rel.startswith('..'):
            continue
        folder = folder_of(rel)
        if folder is None or folder == 'cli':
            continue
        out = subprocess.run([nm, path], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == 'U':
                undefined.append((folder, rel, parts[1]))
            elif len(parts) == 3 and parts[1] in 'TDRBVW':
                defined[parts[2]] = (folder, rel)
    return defined, undefined


def call_edges(defined, undefined):
    edges = {}
    for folder, rel, sym in undefined:
        if sym in defined and defined[sym][0] != folder:
            b, brel = defined[sym]
            edges.setdefault((folder, b), []).append(f'{rel} uses {sym} of {brel}')
    return edges


def cycles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    graph = {n: sorted({b for (a, b) in edges if a == n}) for n in nodes}
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return out


def file_edges(folder, defined, undefined):
    """Calls between the objects of one folder: (a, b) -> why, a and b the
    source file names (core.c)."""
    def name(rel):
        return os.path.basename(rel)[:-len('.o')]
    edges, nodes = {}, set()
    for a_folder, rel, sym in undefined:
        if a_folder != folder:
            continue
        nodes.add(name(rel))
        if sym in defined and defined[sym][0] == folder and defined[sym][1] != rel:
            b = name(defined[sym][1])
            edges.setdefault((name(rel), b), []).append(f'{name(rel)} calls {sym} of {b}')
    nodes |= {name(r) for f, r in defined.values() if f == folder}
    return nodes, edges


def layers(nodes, edges):
    """The nodes in layers: layer 0 calls nothing of the set, layer k only
    nodes of layers below it. Nodes in a cycle (and those above one) get no
    layer."""
    out, placed = [], set()
    while True:
        layer = sorted(n for n in nodes if n not in placed and
                       all(b in placed for (a, b) in edges if a == n))
        if not layer:
            return out
        out.append(layer)
        placed |= set(layer)


def print_cycles(what, bad, edges, most, arrow):
    """Each cycle of `bad` with (at most `most` of) the edges that make it;
    arrow: name the edge's ends before each reason."""
    for comp in bad:
        print(f'\nCYCLE between {what}: {" ".join(comp)}')
        for (a, b), why in sorted(edges.items()):
            if a in comp and b in comp:
                for w in why[:most]:
                    print(f'  {a} -> {b}: {w}' if arrow else f'  {w}')


def check_files(folder, defined, undefined):
    """Print the files of a folder in layers and each call cycle between
    them; the number of cycles."""
    nodes, edges = file_edges(folder, defined, undefined)
    if not nodes:
        return 0
    print(f'\nsrc/{folder}/, files by layer (each file calls only files of the layers before it):')
    for k, layer in enumerate(layers(nodes, edges)):
        print(f'  {k}: {" ".join(layer)}')
    bad = cycles(nodes, edges)
    print_cycles(f'files of src/{folder}/', bad, edges, 3, False)
    sizes = ' '.join(str(len(c)) for c in bad)
    print(f'src/{folder}/: {len(nodes)} files, {len(bad)} cycle(s)' +
          (f' of {sizes} files' if bad else ''))
    return len(bad)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    src, objdir = sys.argv[1], sys.argv[2]
    nm = sys.argv[3] if len(sys.argv) > 3 else 'nm'
    edges = include_edges(src)
    defined, undefined = symbols(objdir, nm, sys.argv[4:])
    for k, v in call_edges(defined, undefined).items():
        edges.setdefault(k, []).extend(v)
    nodes = {a for a, _ in edges} | {b for _, b in edges}
    for n in sorted(nodes):
        print(f'{n} -> {" ".join(sorted({b for (a, b) in edges if a == n})) or "(nothing)"}')
    bad = cycles(nodes, edges)
    print_cycles('folders', bad, edges, 5, True)
    print(f'\n{len(nodes)} folders, {len(bad)} cycle(s)')
    file_bad = sum(check_files(f, defined, undefined) for f in FILE_LAYERS)
    return 1 if bad or file_bad else 0


if __name__ == '__main__':
    sys.exit(main())
