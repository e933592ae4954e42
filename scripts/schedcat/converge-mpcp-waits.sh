#!/usr/bin/env bash
# Changes one thing in a SchedCAT port that build.sh made, for a
# side-by-side run that isolates it:
#
#   scripts/schedcat/build.sh SRC DEST
#   scripts/schedcat/converge-mpcp-waits.sh DEST
#   cargo run --release -- bench analysis --analysis lp --protocol mpcp --schedcat DEST
#
# SchedCAT's `lp-mpcp` bounds a request's wait with Lakshmanan et al.'s
# recurrence (RTSS 2009, Eq. 3) in `bound_remote_delay`
# (native/src/blocking/linprog/lp_mpcp.cpp), but stops the iteration as
# soon as the next iterate passes the task's *current* response-time
# estimate and returns the last iterate below it: a value short of the
# recurrence's solution, which its constraint 20 then uses as the task's
# whole remote blocking (at worst 1 ns, its starting value). This script
# lets the recurrence run to its solution, bounded by the task's deadline
# as the classic MPCP analysis bounds it (no bound past the deadline),
# and rebuilds the LP module. Nothing else changes. docs/ANALYSIS.md ("LP
# bounds") says what rtsync's LP MPCP bounds look like beside either.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 DEST   (a SchedCAT port that scripts/schedcat/build.sh built)" >&2
    exit 2
fi
if [ ! -d "$1" ]; then
    echo "$1: no such folder (build a port first: scripts/schedcat/build.sh SCHEDCAT_CHECKOUT $1)" >&2
    exit 2
fi
dest=$(cd "$1" && pwd)
src=$dest/native/src/blocking/linprog/lp_mpcp.cpp
python=$dest/.venv/bin/python
if [ ! -f "$src" ] || [ ! -x "$python" ]; then
    echo "$dest is not a port built by scripts/schedcat/build.sh (no $src or .venv)" >&2
    exit 2
fi

"$python" - "$src" <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
edits = [
    ("\twhile (next_estimate <= ti.get_response() && next_estimate != estimate)",
     "\twhile (next_estimate <= ti.get_deadline() && next_estimate != estimate)"),
    ("\tif (estimate <= ti.get_response())\n\t\treturn estimate;",
     "\tif (next_estimate == estimate)\n\t\treturn estimate;"),
]
if all(new in text for _, new in edits):
    print("already converged: nothing to change")
    sys.exit(0)
for old, new in edits:
    if text.count(old) != 1:
        sys.exit(f"{path}: the expected line is not there once:\n{old}\n"
                 "(a SchedCAT version this script does not know)")
    text = text.replace(old, new)
open(path, "w").write(text)
print("bound_remote_delay now iterates to its solution (or the deadline)")
EOF

include=$("$python" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
make -C "$dest/native" -j"$(nproc)" PYTHON="$python" PYTHON_HEADER_DIR="$include" \
    >"$dest/converge.log" 2>&1 || { tail -30 "$dest/converge.log" >&2; exit 1; }
echo "rebuilt: $dest (its lp-mpcp waits converge; the other analyses are SchedCAT's own)"
