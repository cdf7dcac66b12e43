#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the npy/npz round-trip tests, made with Debian's numpy at test time.

  npz_fixture.py make OUTDIR    writes numpy_stored.npz (np.savez), numpy_deflated.npz
                                (np.savez_compressed), one .npy per case and manifest.txt
  npz_fixture.py check OUTDIR FILE...
                                loads FILE (written by TGraph Studio) with np.load and checks that
                                keys, dtypes, shapes, memory order and bytes equal numpy's own
                                arrays; for members stored uncompressed, also that every .npy
                                member is byte-identical to what np.save writes.

Values are a formula of the flat C-order index (see value_formula) so that the C++ side can
check them independently: min/max of the type at indices 0/1, then a small pattern; floats get
inf, -inf and nan at indices 1, 2, 3.
"""
import io
import sys
import zipfile

import numpy as np

DTYPES = ['|b1', '|i1', '|u1', '<i2', '>i2', '<u2', '>u2', '<i4', '>i4', '<u4', '>u4',
          '<i8', '>i8', '<u8', '>u8', '<f2', '>f2', '<f4', '>f4', '<f8', '>f8']
SHAPES = [(), (5,), (0,), (3, 4), (2, 0), (2, 3, 4), (2, 3, 2, 3)]


def value_formula(dtype, n):
    dt = np.dtype(dtype)
    i = np.arange(n, dtype=np.int64)
    if dt.kind == 'b':
        return (i % 3 == 0)
    if dt.kind == 'i':
        v = (i * 37 % 201) - 100
        out = v.astype(dt)
        if n > 1:
            out[0] = np.iinfo(dt).min
            out[1] = np.iinfo(dt).max
        return out
    if dt.kind == 'u':
        out = (i * 37 % 251).astype(dt)
        if n > 1:
            out[1] = np.iinfo(dt).max
        return out
    out = (i * 0.5 - 3.25).astype(dt)
    if n > 4:
        out[1] = np.inf
        out[2] = -np.inf
        out[3] = np.nan
    return out


def cases():
    for dtype in DTYPES:
        for shape in SHAPES:
            n = int(np.prod(shape)) if shape else 1
            flat = value_formula(dtype, n)
            arr = flat.reshape(shape)
            name = 'a_%s_%s' % (dtype.replace('<', 'le').replace('>', 'be').replace('|', ''),
                                'x'.join(str(d) for d in shape) or 'scalar')
            yield name + '_C', arr.copy(order='C')
            if len(shape) >= 2:
                yield name + '_F', arr.copy(order='F')


def make(outdir):
    arrays = dict(cases())
    np.savez(outdir + '/numpy_stored.npz', **arrays)
    np.savez_compressed(outdir + '/numpy_deflated.npz', **arrays)
    with open(outdir + '/manifest.txt', 'w') as f:
        for key, a in arrays.items():
            fortran = bool(a.flags.f_contiguous and not a.flags.c_contiguous)
            f.write('%s %s %d %s\n' % (key, a.dtype.str, int(fortran), ','.join(str(d) for d in a.shape) or '-'))
            np.save(outdir + '/' + key + '.npy', a)


def npy_bytes(a):
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def check(outdir, files):
    expected = dict(np.load(outdir + '/numpy_stored.npz'))
    failures = []
    for path in files:
        with np.load(path) as got:
            if sorted(got.files) != sorted(expected.keys()):
                failures.append('%s: keys differ: %s' % (path, sorted(set(got.files) ^ set(expected.keys()))))
                continue
            for key, want in expected.items():
                a = got[key]
                if a.dtype.str != want.dtype.str:
                    failures.append('%s: %s: dtype %s != %s' % (path, key, a.dtype.str, want.dtype.str))
                elif a.shape != want.shape:
                    failures.append('%s: %s: shape %s != %s' % (path, key, a.shape, want.shape))
                elif np.isfortran(a) != np.isfortran(want):
                    failures.append('%s: %s: memory order differs' % (path, key))
                elif a.tobytes() != want.tobytes():
                    failures.append('%s: %s: values differ' % (path, key))
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            if bad is not None:
                failures.append('%s: zip CRC check fails for %s' % (path, bad))
            for info in z.infolist():
                if info.compress_type == zipfile.ZIP_STORED:
                    key = info.filename[:-4]
                    if z.read(info) != npy_bytes(expected[key]):
                        failures.append('%s: member %s is not byte-identical to np.save output' % (path, info.filename))
    for f in failures:
        print(f)
    print('checked %d files, %d arrays each, %d failures' % (len(files), len(expected), len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    if len(sys.argv) >= 3 and sys.argv[1] == 'make':
        make(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) >= 4 and sys.argv[1] == 'check':
        sys.exit(check(sys.argv[2], sys.argv[3:]))
    print(__doc__)
    sys.exit(2)
