#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Makes TpuGraphs-shaped .tar archives for the tests of `tgraph data fetch` (tst_datafetch).

  dataset_archives.py mirror --tile DIR --layout DIR --out MIRROR
      DIR/{train,valid,test}/*.npz (tgraph synth --collection) become MIRROR/npz_tile_xla_SPLIT.tar
      and MIRROR/npz_layout_xla_default_SPLIT.tar with members npz/tile/xla/SPLIT/NAME.npz, as the
      published archives hold them.
  dataset_archives.py hostile --kind KIND --tile DIR --out TAR
      npz_tile_xla_train.tar-shaped archives with one bad member after a good one:
      corrupt (an npz cut in half), absolute, dotdot, symlink, hardlink, nested, truncated (the tar
      itself cut inside a member's data).
"""
import argparse
import io
import os
import sys
import tarfile


def add_file(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def npz_files(folder):
    return sorted(f for f in os.listdir(folder) if f.endswith(".npz"))


def mirror(args):
    os.makedirs(args.out, exist_ok=True)
    for stem, folder, src in (("npz_tile_xla", "npz/tile/xla", args.tile),
                              ("npz_layout_xla_default", "npz/layout/xla/default", args.layout)):
        for split in ("train", "valid", "test"):
            with tarfile.open(os.path.join(args.out, "%s_%s.tar" % (stem, split)), "w",
                              format=tarfile.GNU_FORMAT) as tar:
                info = tarfile.TarInfo("%s/%s" % (folder, split))
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
                for name in npz_files(os.path.join(src, split)):
                    with open(os.path.join(src, split, name), "rb") as f:
                        add_file(tar, "%s/%s/%s" % (folder, split, name), f.read())


def hostile(args):
    files = npz_files(os.path.join(args.tile, "train"))
    with open(os.path.join(args.tile, "train", files[0]), "rb") as f:
        good = f.read()
    prefix = "npz/tile/xla/train/"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        add_file(tar, prefix + "good.npz", good)
        kind = args.kind
        if kind == "corrupt":
            add_file(tar, prefix + "broken.npz", good[: len(good) // 2])
        elif kind == "absolute":
            add_file(tar, "/tmp/tgraph-absolute-member.npz", good)
        elif kind == "dotdot":
            add_file(tar, prefix + "../../../../../escaped.npz", good)
        elif kind == "symlink":
            info = tarfile.TarInfo(prefix + "link.npz")
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            tar.addfile(info)
        elif kind == "hardlink":
            info = tarfile.TarInfo(prefix + "hard.npz")
            info.type = tarfile.LNKTYPE
            info.linkname = prefix + "good.npz"
            tar.addfile(info)
        elif kind == "nested":
            add_file(tar, prefix + "sub/deeper.npz", good)
        elif kind == "truncated":
            add_file(tar, prefix + "second.npz", good)
        else:
            sys.exit("unknown kind " + kind)
    data = buf.getvalue()
    if args.kind == "truncated":
        # Cut inside the second member's data: 512-byte header blocks, the first member padded.
        first = 512 + (len(good) + 511) // 512 * 512
        data = data[: first + 512 + len(good) // 2]
    with open(args.out, "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("action", choices=["mirror", "hostile"])
    ap.add_argument("--tile")
    ap.add_argument("--layout")
    ap.add_argument("--kind")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    mirror(args) if args.action == "mirror" else hostile(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
