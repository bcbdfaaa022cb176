#!/usr/bin/env bash
# The emitted-code check's campaign: fuzz programs rewritten with a
# deliberate bug of code generation (the testing-only option
# emit-test-mutation: `duplicate`, a statement instance emitted twice, with
# and without reassociate/contract; `hoist`, one emitted a loop level too
# high). For each run:
#   - polyrs-opt exits 0, or 1 with "internal error while rewriting" (code
#     generation could not print the mutated tree); never a crash, a panic
#     or a hang (60 s);
#   - where the check catches the bug and no SCoP of the program was
#     rewritten, the output prints exactly as the input does (the SCoPs
#     put back, with what was prepared for them taken back).
#
#   fuzz/mutations.sh [BIN_DIR] [SEEDS] [FAMILY...]
#
# BIN_DIR defaults to target/release, SEEDS (programs 1..SEEDS of each
# family) to 12, the families to the list below. Prints one line per
# failing run and a summary; exits 1 when any run fails.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release}
seeds=${2:-12}
shift $(( $# < 2 ? $# : 2 ))
families=("$@")
if [ ${#families[@]} -eq 0 ]; then
  families=(reductions carried locals around views mixed steps matvec factor ml rows parallel streams solves)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
opt="$bin/polyrs-opt"
caught=0 identical=0 failed=0 runs=0
for fam in "${families[@]}"; do
  for seed in $(seq 1 "$seeds"); do
    python3 fuzz/gen.py --family "$fam" --seed "$seed" > "$work/p.mlir" 2>/dev/null || continue
    timeout 60 "$opt" "$work/p.mlir" > "$work/plain.mlir" 2>/dev/null || continue
    for variant in duplicate "duplicate reassociate=true contract=true" hoist; do
      set -- $variant
      mutation=$1; shift
      runs=$((runs + 1))
      timeout 60 "$opt" "$work/p.mlir" \
        --poly-opt="profitability=false emit-test-mutation=$mutation $*" \
        > "$work/out.mlir" 2> "$work/err.txt"
      rc=$?
      if [ $rc -ne 0 ] && { [ $rc -ne 1 ] || ! grep -q "internal error while rewriting" "$work/err.txt"; }; then
        failed=$((failed + 1))
        echo "FAIL exit $rc: $fam $seed [$variant]"
        continue
      fi
      if grep -q "does not compute what the SCoP computed" "$work/err.txt"; then
        caught=$((caught + 1))
        if ! grep -q "remark: poly-opt: [0-9]* statement" "$work/err.txt"; then
          if cmp -s "$work/plain.mlir" "$work/out.mlir"; then
            identical=$((identical + 1))
          else
            failed=$((failed + 1))
            echo "FAIL not put back as it was: $fam $seed [$variant]"
          fi
        fi
      fi
    done
  done
done
echo "mutations: $runs runs, $caught caught by the check ($identical of them printing as the input), $failed failing"
[ "$failed" -eq 0 ]
