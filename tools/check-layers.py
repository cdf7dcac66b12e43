#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the rooms of the source tree against the table in docs/architecture.md.

Every folder holding sources (core/*, model/*, widgets/*, app/*, app/studio/*) is a room. The table
between the markers `<!-- rooms:begin -->` and `<!-- rooms:end -->` lists each room and the rooms it
may use directly; what those may use is allowed too (the closure). A `#include "room/..."` of a room
outside that closure is a back-edge and fails the check, as do a room missing from the table, a
cycle in the table, Qt or LibTorch headers where the layer forbids them, a LibTorch header
reached from widgets/, app/studio/, app/python/ or tests/widgets/ through any chain of project headers, a
model/ header other than model/facade's included there, and a class, struct, enum or helper namespace
defined outside its layer's namespace (tgraph::widgets under widgets/, tgraph::studio under
app/studio/).

Usage: check-layers.py [--root DIR] [--self-test]
Exit status 0 when the tree obeys the table, 1 with one line per problem otherwise.
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

SOURCE_EXTS = ('.h', '.hpp', '.cpp', '.cc')
LAYERS = ('core', 'model', 'widgets', 'app')
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
TORCH_RE = re.compile(r'^(torch|ATen|c10|caffe2)/')
QT_RE = re.compile(r'^Qt[A-Za-z]*/|^Q[A-Z][A-Za-z]*$')
# What each layer may not include at all (system headers).
FORBIDDEN = {
    'core': [('Qt', QT_RE), ('LibTorch', TORCH_RE)],
    'model': [('Qt', QT_RE)],
    'widgets': [('LibTorch', TORCH_RE)],
}
# Whose transitive project includes must never reach a LibTorch header.
TORCH_FREE_PREFIXES = ('widgets/', 'app/studio/', 'app/python/', 'tests/widgets/')
# The only model/ room those may include: the torch-free facade (its closure in the table is wider).
MODEL_FACADE = 'model/facade/'
# The namespace each of these folders declares its types in (docs/architecture.md, one namespace per
# layer of the Qt side); forward declarations of other classes may stand anywhere.
ROOM_NAMESPACES = (('widgets/', 'tgraph::widgets'), ('app/studio/', 'tgraph::studio'))
CODE_RE = re.compile(r'''//[^\n]*|/\*.*?\*/|R"([^(\s]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|^[ \t]*#[^\n]*''',
                     re.S | re.M)
WORD_RE = re.compile(r'[A-Za-z_]\w*|::|[{};()<>,=]')


def read_table(root):
    path = os.path.join(root, 'docs', 'architecture.md')
    try:
        text = open(path, encoding='utf-8').read()
    except OSError as e:
        raise SystemExit(f'check-layers: cannot read {path}: {e.strerror}')
    m = re.search(r'<!-- rooms:begin -->(.*?)<!-- rooms:end -->', text, re.S)
    if not m:
        raise SystemExit(f'check-layers: {path}: no rooms table (markers <!-- rooms:begin --> / <!-- rooms:end -->)')
    allowed = {}
    for lineno, line in enumerate(m.group(1).splitlines(), 1):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 2 or not cells[0].startswith('`'):
            continue
        room = cells[0].strip('`')
        uses = set()
        for tok in re.findall(r'`([^`]+)`', cells[1]):
            uses.add(tok)
        if room in allowed:
            raise SystemExit(f'check-layers: {path}: room {room} listed twice')
        allowed[room] = uses
    if not allowed:
        raise SystemExit(f'check-layers: {path}: the rooms table is empty')
    return allowed


def closure(allowed, problems):
    # Depth-first; a cycle is a problem (the table must be a DAG).
    result, state = {}, {}

    def visit(room, stack):
        if state.get(room) == 'done':
            return result[room]
        if state.get(room) == 'busy':
            problems.append('cycle in the rooms table: ' + ' -> '.join(stack + [room]))
            return set()
        state[room] = 'busy'
        acc = set()
        for dep in allowed.get(room, ()):
            if dep not in allowed:
                problems.append(f'rooms table: {room} may use {dep}, which is not a room in the table')
                continue
            acc.add(dep)
            acc |= visit(dep, stack + [room])
        state[room] = 'done'
        result[room] = acc
        return acc

    for room in sorted(allowed):
        visit(room, [])
    return result


def source_files(root):
    for layer in LAYERS + ('tests',):
        base = os.path.join(root, layer)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith('.') and d not in ('corpus',))
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTS):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def room_of(path, rooms):
    # The longest room that is a prefix of the file's folder.
    folder = os.path.dirname(path)
    best = None
    for room in rooms:
        if folder == room or folder.startswith(room + '/'):
            if best is None or len(room) > len(best):
                best = room
    return best


def includes_of(root, path, cache):
    if path not in cache:
        try:
            text = open(os.path.join(root, path), encoding='utf-8', errors='replace').read()
        except OSError:
            text = ''
        cache[path] = [(m.group(1), m.group(2), text.count('\n', 0, m.start()) + 1) for m in INCLUDE_RE.finditer(text)]
    return cache[path]


def outside_namespace(text, namespace):
    """(line, what) for every type or helper namespace `text` defines outside `namespace`."""
    blanked = CODE_RE.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    words = [(m.group(0), blanked.count('\n', 0, m.start()) + 1) for m in WORD_RE.finditer(blanked)]
    found = []
    stack = []  # per open brace: the namespace it opens, or None for any other brace

    def inside():
        names = [n for n in stack if n is not None]
        return None not in stack and '::'.join(names).startswith(namespace)

    i = 0
    while i < len(words):
        w, line = words[i]
        if w == 'namespace':
            j, name = i + 1, ''
            while j < len(words) and words[j][0] not in ('{', ';', '='):
                name += words[j][0]
                j += 1
            if j < len(words) and words[j][0] == '{':
                if None not in stack and name and not name.startswith('tgraph') and not inside():
                    found.append((line, f'namespace {name}'))
                stack.append(name)
                i = j + 1
                continue
        elif w == '{':
            stack.append(None)
        elif w == '}':
            if stack:
                stack.pop()
        elif w in ('class', 'struct', 'union', 'enum') and None not in stack and not inside():
            j = i + 1
            while j < len(words) and words[j][0] not in ('{', ';', '(', ')', '>', ',', '='):
                j += 1
            if j < len(words) and words[j][0] == '{':
                name = next((x for x, _ in words[i + 1:j] if x not in ('class', 'struct', 'final', ':', '::')), '?')
                found.append((line, f'{w} {name}'))
        i += 1
    return found


def check(root):
    problems = []
    allowed = read_table(root)
    reach = closure(allowed, problems)
    cache = {}
    files = list(source_files(root))

    for path in files:
        if path.startswith('tests/'):
            continue
        room = room_of(path, allowed)
        folder = os.path.dirname(path)
        if room != folder:
            problems.append(f'{path}: its folder {folder} is not a room of docs/architecture.md')
            continue
        layer = path.split('/')[0]
        for kind, target, line in includes_of(root, path, cache):
            if kind == '<':
                for what, pattern in FORBIDDEN.get(layer, ()):
                    if pattern.search(target):
                        problems.append(f'{path}:{line}: {layer}/ may not include {what} headers (<{target}>)')
                continue
            if not target.startswith(tuple(layer + '/' for layer in LAYERS)):
                continue
            if not os.path.exists(os.path.join(root, target)):
                continue  # generated headers (ui_*.h) and headers of other include roots
            dep = room_of(target, allowed)
            if dep is None or dep == room:
                continue
            if dep not in reach.get(room, set()):
                problems.append(f'{path}:{line}: room {room} includes "{target}" of room {dep}, which it may not use '
                                f'(docs/architecture.md: {room} may use {", ".join(sorted(allowed[room])) or "nothing"})')

    # The Qt side's types live in their layer's namespace.
    for path in files:
        for prefix, namespace in ROOM_NAMESPACES:
            if path.startswith(prefix):
                try:
                    text = open(os.path.join(root, path), encoding='utf-8', errors='replace').read()
                except OSError:
                    continue
                for line, what in outside_namespace(text, namespace):
                    problems.append(f'{path}:{line}: {what} is declared outside namespace {namespace}')

    # LibTorch must not be reachable from the torch-free parts, through any chain of project headers.
    torch_chain = {}

    def torch_path(path, stack):
        if path in torch_chain:
            return torch_chain[path]
        torch_chain[path] = None  # cycle guard
        found = None
        for kind, target, _ in includes_of(root, path, cache):
            if TORCH_RE.search(target):
                found = [path, f'<{target}>']
                break
            if kind == '"':
                candidates = [target, os.path.normpath(os.path.join(os.path.dirname(path), target))]
                for cand in candidates:
                    if os.path.exists(os.path.join(root, cand)):
                        sub = torch_path(cand, stack + [path])
                        if sub:
                            found = [path] + sub
                        break
                if found:
                    break
        torch_chain[path] = found
        return found

    for path in files:
        if path.startswith(TORCH_FREE_PREFIXES):
            chain = torch_path(path, [])
            if chain:
                problems.append(f'{path}: reaches LibTorch: ' + ' -> '.join(chain))
            for kind, target, line in includes_of(root, path, cache):
                if kind == '"' and target.startswith('model/') and not target.startswith(MODEL_FACADE):
                    problems.append(f'{path}:{line}: includes "{target}"; {TORCH_FREE_PREFIXES[1]} and '
                                    f'{TORCH_FREE_PREFIXES[0]} reach the models only through {MODEL_FACADE}')
    return problems


def self_test():
    """A tree with one allowed edge and one back-edge: the check must pass, then fail."""
    tmp = tempfile.mkdtemp(prefix='check-layers-')
    try:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            open(os.path.join(tmp, rel), 'w').write(text)
        write('docs/architecture.md', '<!-- rooms:begin -->\n| room | may use |\n|---|---|\n'
              '| `core/a` | — |\n| `core/b` | `core/a` |\n| `model/m` | `core/b` |\n| `widgets/w` | `core/b` |\n'
              '<!-- rooms:end -->\n')
        write('core/a/a.h', '#pragma once\n')
        write('core/b/b.h', '#pragma once\n#include "core/a/a.h"\n')
        write('model/m/m.h', '#pragma once\n#include <torch/torch.h>\n#include "core/b/b.h"\n')
        write('widgets/w/w.cpp', '#include "core/b/b.h"\n#include "core/a/a.h"\n')
        ok = check(tmp)
        if ok:
            return [f'self-test: a tree that obeys its table was refused: {ok}']
        write('core/a/a.cpp', '#include "core/b/b.h"\n')  # back-edge
        bad = check(tmp)
        if not any('core/a/a.cpp' in p and 'may not use' in p for p in bad):
            return [f'self-test: a back-edge core/a -> core/b was not refused: {bad}']
        os.remove(os.path.join(tmp, 'core/a/a.cpp'))
        write('core/b/b.h', '#pragma once\n#include "model/m/m.h"\n')  # torch reached from widgets/w
        bad = check(tmp)
        if not any('widgets/w/w.cpp: reaches LibTorch' in p for p in bad):
            return [f'self-test: LibTorch reached through a chain was not refused: {bad}']
        write('core/b/b.h', '#pragma once\n')
        write('widgets/w/v.cpp', '#include "model/m/m.h"\n')  # a model room other than the facade
        bad = check(tmp)
        if not any('widgets/w/v.cpp:1: includes "model/m/m.h"' in p for p in bad):
            return [f'self-test: a model header other than model/facade reached from widgets was not refused: {bad}']
        os.remove(os.path.join(tmp, 'widgets/w/v.cpp'))
        write('widgets/w/x.h', '#pragma once\nclass QLabel;\nnamespace tgraph {\nclass Core;\n}\n'
              'namespace tgraph::widgets {\nclass Y : public Z\n{\n};\n}\nclass X\n{\n};\n')
        bad = check(tmp)
        if not any('widgets/w/x.h:11: class X is declared outside namespace tgraph::widgets' in p for p in bad) \
                or any('class Y' in p or 'QLabel' in p or 'Core' in p for p in bad):
            return [f'self-test: a widget class at global scope was not refused alone: {bad}']
        os.remove(os.path.join(tmp, 'widgets/w/x.h'))
        write('core/c/c.h', '#pragma once\n')  # a folder that is no room
        bad = check(tmp)
        if not any('core/c/c.h' in p and 'not a room' in p for p in bad):
            return [f'self-test: a folder missing from the table was not refused: {bad}']
        return []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    ap.add_argument('--self-test', action='store_true', help='check the checker on made-up trees first')
    args = ap.parse_args()
    problems = self_test() if args.self_test else []
    problems += check(os.path.abspath(args.root))
    for p in problems:
        print(p)
    if problems:
        print(f'check-layers: {len(problems)} problem(s); the rooms and their directions are in docs/architecture.md')
        return 1
    print('check-layers: every include follows docs/architecture.md')
    return 0


if __name__ == '__main__':
    sys.exit(main())
