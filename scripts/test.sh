#!/usr/bin/env bash
# The test command: setup, format and lint gates, unit tests, the lit suite
# (through `cargo test --test lit`) and the docs/binary checks.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
cargo build
cargo test
