#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference figures for tgraph-bench npz: np.load of every array of FILE, as numpy users do.

  npz_numpy.py read FILE           -> seconds=... bytes=... peak_rss=... baseline_rss=...
  npz_numpy.py write FILE OUT MODE -> np.savez / np.savez_compressed (MODE stored|deflated) of
                                      FILE's arrays; reports the write time only
"""
import resource
import sys
import time

import numpy as np


def rss_now():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) * 1024
    return 0


def read(path):
    baseline = rss_now()
    start = time.perf_counter()
    with np.load(path) as d:
        arrays = {k: d[k] for k in d.files}
    seconds = time.perf_counter() - start
    nbytes = sum(a.nbytes for a in arrays.values())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print('seconds=%.6f bytes=%d peak_rss=%d baseline_rss=%d' % (seconds, nbytes, peak, baseline))


def write(path, out, mode):
    with np.load(path) as d:
        arrays = {k: d[k] for k in d.files}
    start = time.perf_counter()
    (np.savez if mode == 'stored' else np.savez_compressed)(out, **arrays)
    print('seconds=%.6f bytes=%d' % (time.perf_counter() - start, sum(a.nbytes for a in arrays.values())))


if __name__ == '__main__':
    if sys.argv[1] == 'read':
        read(sys.argv[2])
    else:
        write(sys.argv[2], sys.argv[3], sys.argv[4])
