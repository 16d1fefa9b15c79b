#!/bin/sh
# Non-test lines of each source file of the core and of the bindings: the
# lines before its test module (the `#[cfg(test)]` that opens `mod tests`),
# or all of them; a `tests.rs` file is a test module and is not counted.
# Usage: rust/nontest_lines.sh [limit]   (default 400; files over it marked)
cd "$(dirname "$0")" || exit 1
limit=${1:-400}
find core/src bindings/src -name '*.rs' ! -name tests.rs | sort | while read -r f; do
    awk -v f="$f" -v limit="$limit" '
        { line[NR] = $0 }
        /^mod tests/ && !found {
            k = NR - 1
            while (k > 0 && line[k] ~ /^[[:space:]]*$/) k--
            if (line[k] ~ /^#\[cfg\(test\)\]/) { cut = k - 1; found = 1 }
        }
        END {
            n = found ? cut : NR
            printf "%5d  %s%s\n", n, f, (n > limit ? "  (over " limit ")" : "")
        }' "$f"
done
