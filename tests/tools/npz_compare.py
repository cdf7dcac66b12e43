#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""npz_compare.py A.npz B.npz: exit 0 when both archives hold the same keys, and for every key
the same dtype, shape and bytes (np.load of each); prints the differences otherwise."""
import sys

import numpy as np

a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
problems = []
if sorted(a.files) != sorted(b.files):
    problems.append('keys differ: %s vs %s' % (sorted(a.files), sorted(b.files)))
for k in sorted(set(a.files) & set(b.files)):
    x, y = a[k], b[k]
    if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
        problems.append('%s: %s%s vs %s%s' % (k, x.dtype, x.shape, y.dtype, y.shape))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
