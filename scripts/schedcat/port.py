"""Finishes the Python 3 port of a SchedCAT tree after 2to3 has run.

2to3 rewrites the syntax; these are the library changes between Python 2.7
and 3.11 that it does not know about. Each fix names the text it expects and
fails loudly if that text is not there, so a SchedCAT revision that moved on
is reported instead of half-ported.

Usage: python3 port.py TREE
"""

import pathlib
import sys

FIXES = [
    # fractions.gcd left the standard library in Python 3.9.
    (
        "schedcat/util/math.py",
        "from fractions import gcd",
        "from math import gcd",
    ),
    # Python 3's heapq orders with `<` only; Python 2.7's fell back on
    # `<=` when a class had no `__lt__`.
    (
        "schedcat/util/iter.py",
        "    def __le__(self, other):\n        return self.le(self.val, other.val)\n",
        "    def __le__(self, other):\n        return self.le(self.val, other.val)\n\n"
        "    def __lt__(self, other):\n        return not self.le(other.val, self.val)\n",
    ),
    # PEP 479: a StopIteration escaping a generator is an error now; an
    # empty sequence simply has no unique elements.
    (
        "schedcat/util/iter.py",
        "    it = iter(seq)\n    last = next(it)\n",
        "    it = iter(seq)\n    try:\n        last = next(it)\n    except StopIteration:\n        return\n",
    ),
    # The serializer hangs the task on its XML element; Python 3's default
    # (C) Element takes no new attributes, the pure-Python one does, as
    # Python 2's ElementTree.Element did.
    (
        "schedcat/model/serialize.py",
        "import xml.etree.ElementTree as ET\n",
        "import importlib.util as _ilu\n"
        "import sys as _sys\n"
        "_spec = _ilu.find_spec('xml.etree.ElementTree')\n"
        "_saved = _sys.modules.get('_elementtree')\n"
        "_sys.modules['_elementtree'] = None\n"
        "ET = _ilu.module_from_spec(_spec)\n"
        "_spec.loader.exec_module(ET)\n"
        "if _saved is None:\n"
        "    del _sys.modules['_elementtree']\n"
        "else:\n"
        "    _sys.modules['_elementtree'] = _saved\n",
    ),
    # Python 2's StringIO took the bytes ElementTree writes by default;
    # Python 3 text streams want str, which encoding="unicode" gives (a
    # file name works either way).
    (
        "schedcat/model/serialize.py",
        "    tree.write(fname)\n",
        "    tree.write(fname, encoding=\"unicode\")\n",
    ),
    # Python 2's map(None, xs) was xs itself.
    (
        "schedcat/util/math.py",
        "    x = list(map(fun, lst))\n",
        "    x = list(lst) if fun is None else list(map(fun, lst))\n",
    ),
    # Python 3's `/` is true division; this bisection is over integers.
    (
        "schedcat/sched/canbus/prio_assign.py",
        "alpha_mid = (alpha_min + alpha_max) / 2",
        "alpha_mid = (alpha_min + alpha_max) // 2",
    ),
    # Python 2's range() took mpmath's integral mpf through __int__.
    (
        "schedcat/sched/canbus/prob_success.py",
        "    lmax = mpmath.ceil(float(k)/2) - 1\n",
        "    lmax = int(mpmath.ceil(float(k)/2)) - 1\n",
    ),
]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    tree = pathlib.Path(sys.argv[1])
    for rel, old, new in FIXES:
        path = tree / rel
        text = path.read_text()
        if new in text:
            continue
        if text.count(old) != 1:
            sys.exit(f"port.py: {rel} no longer holds the text this fix expects:\n{old}")
        path.write_text(text.replace(old, new))
    print(f"port.py: {len(FIXES)} Python 3 fixes applied to {tree}")


if __name__ == "__main__":
    main()
