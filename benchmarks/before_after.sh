#!/usr/bin/env bash
# Our methods before and after a change, one run after the other on the same machine.
#
# Usage: benchmarks/before_after.sh BEFORE_VENV AFTER_VENV OUT_DIR
#   e.g. git clone . /tmp/before-src && git -C /tmp/before-src checkout 3926b4f
#        python3 -m venv /tmp/before-venv && /tmp/before-venv/bin/pip install /tmp/before-src
#        benchmarks/before_after.sh /tmp/before-venv .venv /tmp/ba
# Writes OUT_DIR/before.md and OUT_DIR/after.md (the `broadphase bench --markdown` tables of
# every box and circle scene at n = 1e3 ... 1e6, no peers).
set -euo pipefail
before=$1 after=$2 out=$3
mkdir -p "$out"
scenes="uniform clustered mixed straddlers elongated wide seed000 bullets"
for side in before after; do
    venv=$before; [ "$side" = after ] && venv=$after
    (cd "$out" && "$venv/bin/broadphase" bench --scenario $scenes --n 1000 10000 100000 1000000 \
        --markdown "$side.md" > "$side.log" 2>&1)
done
