#!/usr/bin/env bash
# The test command: setup, format, lint and rustdoc gates, unit tests, the lit suite
# (through `cargo test --test lit`) and the docs/binary checks.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
# The API docs build without broken links or stray HTML (private items and
# the options' help texts included in what rustdoc checks).
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib --quiet
cargo build
# Keep the full log, then close with one plain summary line over all harnesses
# (the lit suite counts as one cargo test; its own summary is in the log).
log=$(mktemp)
status=0
cargo test 2>&1 | tee "$log" || status=$?
passed=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s+=$4} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
lit_passed=$(grep -Eo '^ *Passed *: *[0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1 || true)
rm -f "$log"
echo "lit tests passed: ${lit_passed:-0}"
echo "${passed} passed, ${failed} failed"
exit "$status"
