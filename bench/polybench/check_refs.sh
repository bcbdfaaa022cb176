#!/usr/bin/env bash
# Compare the MLIR checksum (run.sh) with the C reference (ref/<kernel>.c, gcc -O0)
# for every kernel that has a C reference, at each size in $SIZES (default: MINI SMALL).
# Both print printf("%.17g"), so equal strings mean bit-identical doubles.
# Usage: check_refs.sh [kernel...]      Exit status: 0 iff every comparison matched.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SIZES=${SIZES:-"MINI SMALL"}
CC=${CC:-gcc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ $# -gt 0 ]; then
  KERNELS="$*"
else
  KERNELS=$(cd "$HERE/ref" && ls *.c | sed 's/\.c$//' | sort)
fi

fail=0
for k in $KERNELS; do
  if [ ! -f "$HERE/ref/$k.c" ]; then
    echo "no C reference for $k" >&2
    fail=1
    continue
  fi
  for s in $SIZES; do
    if ! "$CC" -O0 -ffp-contract=off -D"${s}_DATASET" -I"$HERE/ref" \
         -o "$TMP/$k.$s" "$HERE/ref/$k.c" -lm 2>"$TMP/cc.err"; then
      printf '%-16s %-6s C COMPILE ERROR\n' "$k" "$s"; cat "$TMP/cc.err"; fail=1; continue
    fi
    c_out=$("$TMP/$k.$s")
    m_out=$("$HERE/run.sh" "$k" "$s" 2>"$TMP/mlir.err")
    if [ $? -ne 0 ]; then
      printf '%-16s %-6s MLIR RUN ERROR\n' "$k" "$s"; head -20 "$TMP/mlir.err"; fail=1; continue
    fi
    if [ "$c_out" == "$m_out" ]; then
      printf '%-16s %-6s OK        %s\n' "$k" "$s" "$m_out"
    else
      printf '%-16s %-6s MISMATCH  mlir=%s c=%s\n' "$k" "$s" "$m_out" "$c_out"
      fail=1
    fi
  done
done
exit $fail
