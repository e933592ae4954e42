#!/usr/bin/env bash
# Builds a Python 3 port of SchedCAT beside rtsync, for side-by-side runs:
#
#   scripts/schedcat/build.sh SRC DEST
#   cargo run --release -- bench analysis --schedcat DEST
#
# SRC is a SchedCAT checkout (its top folder holds schedcat/ and native/);
# nothing is downloaded but Debian's and PyPI's packages. DEST is a scratch
# folder made anew: SRC is copied there, ported with 2to3 and port.py,
# its C++ analyses (and the GLPK-based LP ones) built with SWIG, given a
# virtual environment with numpy and mpmath, and checked with SchedCAT's
# own test suite, which must pass whole. Takes about two minutes on two
# cores.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 2 ]; then
    echo "usage: $0 SCHEDCAT_SOURCE DEST" >&2
    echo "  SCHEDCAT_SOURCE: a SchedCAT checkout (holds schedcat/ and native/)" >&2
    echo "  DEST: a scratch folder to build the Python 3 port in (made anew)" >&2
    exit 2
fi
src=$(cd "$1" && pwd)
dest=$2
if [ ! -d "$src/schedcat" ] || [ ! -f "$src/native/Makefile" ]; then
    echo "$src is not a SchedCAT checkout: it needs schedcat/ and native/Makefile" >&2
    exit 2
fi

need=()
command -v swig >/dev/null || need+=(swig)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
[ -f /usr/include/glpk.h ] || need+=(libglpk-dev)
[ -f /usr/include/gmpxx.h ] || [ -f /usr/include/x86_64-linux-gnu/gmpxx.h ] || need+=(libgmp-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "installing ${need[*]} (Debian packages)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

python=${PYTHON:-python3}
if ! "$python" -c "import lib2to3" 2>/dev/null; then
    echo "$python has no lib2to3 (removed in Python 3.13): set PYTHON to a Python 3.9-3.12" >&2
    exit 2
fi

rm -rf "$dest"
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
(cd "$src" && tar --exclude=.git -cf - .) | (cd "$dest" && tar -xf -)

echo "porting to Python 3 (2to3, then port.py)"
"$python" -W ignore -m lib2to3 -w -n -j 2 "$dest/schedcat" "$dest/tests" "$dest/example" >"$dest/2to3.log" 2>&1
"$python" "$here/port.py" "$dest"

echo "virtual environment with numpy and mpmath"
"$python" -m venv "$dest/.venv"
"$dest/.venv/bin/pip" install -q numpy mpmath

echo "building the C++ analyses (SWIG, GLPK)"
include=$("$dest/.venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
make -C "$dest/native" -j"$(nproc)" PYTHON="$dest/.venv/bin/python" PYTHON_HEADER_DIR="$include" \
    >"$dest/build.log" 2>&1 || { tail -30 "$dest/build.log" >&2; exit 1; }
make -C "$dest" links -o cpp PYTHON="$dest/.venv/bin/python" >/dev/null

echo "SchedCAT's own test suite"
(cd "$dest" && .venv/bin/python -m tests) >"$dest/tests.log" 2>&1 || true
summary=$(tail -1 "$dest/tests.log")
grep -E "^Ran [0-9]+ tests" "$dest/tests.log" || true
echo "$summary"
case $summary in
OK*) ;;
*)
    echo "SchedCAT's tests did not all pass; see $dest/tests.log" >&2
    exit 1
    ;;
esac
cp "$here/analyse.py" "$dest/rtsync_analyse.py"
echo "built: $dest"
echo "next: cargo run --release -- bench analysis --schedcat $dest"
