#!/usr/bin/env bash
# The core's memory check, not part of CI (it takes a while): its tests under
# AddressSanitizer (nightly) and valgrind, then the fuzz target of the methods
# against the naive reference (cargo-fuzz, nightly) for FUZZ_SECONDS.
#
#   bash rust/check_memory.sh            # all three
#   FUZZ_SECONDS=0 bash rust/check_memory.sh   # the sanitizers only
#
# Needs: a nightly toolchain (rustup toolchain install nightly),
# valgrind (apt-get install valgrind) and, for the
# fuzzing, cargo-fuzz (cargo install cargo-fuzz).
set -euo pipefail
cd "$(dirname "$0")"
target=$(rustc -vV | sed -n 's/^host: //p')
cases=${PROPTEST_CASES:-16}

echo "== AddressSanitizer: cargo test of broadphase-core"
RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address" PROPTEST_CASES=$cases \
    cargo +nightly test --target "$target" -p broadphase-core --lib --tests \
    --target-dir target/asan

echo "== valgrind: the release test binaries of broadphase-core"
bins=$(cargo test --release -p broadphase-core --lib --tests --no-run 2>&1 |
    sed -n 's/.*Executable .*(\(.*\))$/\1/p')
for bin in $bins; do
    echo "-- $bin"
    PROPTEST_CASES=$cases valgrind --error-exitcode=1 --leak-check=no --quiet "$bin" --test-threads=2
done

seconds=${FUZZ_SECONDS:-300}
if [ "$seconds" -gt 0 ]; then
    echo "== fuzzing the methods against the naive reference for ${seconds}s"
    (cd fuzz && cargo +nightly fuzz run methods -- -max_total_time="$seconds")
fi
echo "memory check passed"
