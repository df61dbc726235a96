#!/bin/sh
# math.sh - times the transcendental elementwise ops of bench/math.gilt
# (exp, tanh, erf, log, sigmoid, GELU with erf and with tanh, softplus,
# ELU, a row softmax, each 8 times over 65536 f32 elements, and 8
# negations for the cost of a call) compiled, with `gjit --benchmark`, on one thread pinned to
# core 0. The input is 65536 values spread over [-8, 8) (a fixed
# sequence, written once as a .npy file).
#
#   sh bench/math.sh [GJIT] [-- GJIT_FLAGS...]
#
# GJIT defaults to bin/gjit; GJIT_FLAGS go to every run: `-- --interpret`
# times the interpreter, `-- -p PIPELINE` another pipeline (the default's
# without loop-expand-math shows what the math library calls cost).
# Prints one line per function: the median and minimum latency in ms.
# Times are for information: nothing here fails on them.

gjit=bin/gjit
if [ $# -gt 0 ] && [ "$1" != -- ]; then gjit=$1; shift; fi
[ "${1:-}" = -- ] && shift
here=$(dirname "$0")
input=${TMPDIR:-/tmp}/gilt-math-$$.npy
trap 'rm -f "$input"' EXIT INT TERM
python3 - "$input" <<'PY' || exit 1
import struct, sys
n = 1 << 16
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
    f.write(struct.pack('<%df' % n, *(((i * 2654435761) % n) / n * 16 - 8 for i in range(n))))
PY
pin=
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
printf '%-10s %10s %10s\n' function median_ms min_ms
for fn in neg exp tanh erf log sigmoid gelu gelu_tanh softplus elu softmax; do
	out=$($pin "$gjit" "$here/math.gilt" --function=math_$fn --input=@"$input" \
		--threads=1 --benchmark=50 --benchmark-format=json "$@") || {
		printf '%-10s failed\n' $fn
		continue
	}
	printf '%s\n' "$out" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print("%-10s %10.3f %10.3f" % (sys.argv[1], r["median_ms"], r["min_ms"]))' $fn
done
