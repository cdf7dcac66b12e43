#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The modules and stages of an XLA dump folder worked out from its file names with regular
expressions, independently of core/dump, for tst_dumpcli to compare with `tgraph dump list --json`.
Covers the names a GPU or CPU folder has (docs/formats.md §17.1): before_optimizations, the
per-pass files, passes without a before_ half, named before_X stages, [BACKEND_]after_optimizations
with its buffer assignment, and artifacts named after the module.

    dump_names.py DIR  ->  JSON {"modules": [{"id", "name", "backend", "stages": [...], "artifacts": [...]}]}
"""
import json
import os
import re
import sys

ID = r"module_(?P<id>\d{4,})"
STAGE_FORMS = [
    # (kind, pattern of the whole name); the name group is greedy except where a counter follows
    ("before_optimizations", ID + r"\.(?P<name>.+)\.before_optimizations\.txt"),
    ("after_optimizations",
     ID + r"\.(?P<name>.+)\.(?P<backend>sm_\d+\.\d+_gpu|cpu|gfx\w+_gpu)_after_optimizations(?P<attachment>-buffer-assignment|-memory-usage-report)?\.txt"),
    ("pass", ID + r"\.(?P<name>.+?)\.(?P<index>\d{4,})\.(?P<pipeline>[^.]+)\.after_(?P<pass>[^.]+)\.before_(?P<next>[^.]+)\.txt"),
    ("during_pass", ID + r"\.(?P<name>.+?)\.(?P<index>\d{4,})\.(?P<pass>[^.]+)\.(?P<step>[^.]+)\.txt"),
    ("named", ID + r"\.(?P<name>.+)\.(?P<stage>before_[A-Za-z0-9_]+)\.txt"),
]
ORDER = {"before_optimizations": 0, "named": 1, "pass": 2, "during_pass": 2, "after_optimizations": 4}


def main(folder):
    names = sorted(os.listdir(folder))
    modules = {}  # (id, name) -> module
    leftovers = []
    for file in names:
        for kind, pattern in STAGE_FORMS:
            m = re.fullmatch(pattern, file)
            if m:
                break
        else:
            leftovers.append(file)
            continue
        g = m.groupdict()
        key = (int(g["id"]), g["name"])
        module = modules.setdefault(key, {"id": key[0], "name": key[1], "backend": "", "stages": {}, "artifacts": []})
        if g.get("attachment"):
            continue  # listed with its stage, not a stage of its own
        index = int(g["index"]) if g.get("index") else None
        stage = {"index": index, "kind": kind, "pipeline": g.get("pipeline") or "", "pass": g.get("pass") or "",
                 "next": g.get("next") or "", "step": g.get("step") or "", "file": file}
        if kind == "after_optimizations":
            module["backend"] = g["backend"]
        stage_key = (ORDER[kind], index if index is not None else -1, g.get("stage") or kind, g.get("backend") or "")
        module["stages"][stage_key] = stage
    # Artifacts: "[lmhlo.]module_NNNN.NAME.REST" with NAME one of the module names of the id.
    for file in leftovers:
        m = re.fullmatch(r"(?:lmhlo\.)?module_(\d{4,})\.(.+)", file)
        if not m:
            continue
        candidates = [name for (i, name) in modules if i == int(m.group(1)) and m.group(2).startswith(name + ".")]
        if candidates:
            modules[(int(m.group(1)), max(candidates, key=len))]["artifacts"].append(file)
    out = []
    for key in sorted(modules):
        module = modules[key]
        module["stages"] = [module["stages"][k] for k in sorted(module["stages"])]
        module["artifacts"].sort()
        out.append(module)
    json.dump({"modules": out, "files": len(names)}, sys.stdout, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
