#!/bin/sh
# models.sh - runs every reference model of ../shared/models through gjit
# and prints, per model, the wall time of the whole run (import, pipeline,
# and the run itself) and whether the output matched the reference within
# a relative L2 error of 1e-4.
#
#   sh bench/models.sh [GJIT [MODELS_DIR]] [-- GJIT_FLAGS...]
#
# GJIT defaults to bin/gjit, MODELS_DIR to ../shared/models beside the
# source tree; GJIT_FLAGS go to every run (`-- --interpret` times the
# reference interpreter, `-- --threads=1` the compiled code on one thread).
# The run is pinned to one core (taskset -c 0) when taskset exists: issue 9
# asks for ResNet-18 interpreted in under two minutes on
# one core; with --threads=N among GJIT_FLAGS, to cores 0 to N-1, so that
# the threads of a parallel loop have cores to run on. Times are for
# information: nothing here fails on them.

gjit=bin/gjit
models=$(dirname "$0")/../../shared/models
if [ $# -gt 0 ] && [ "$1" != -- ]; then gjit=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != -- ]; then models=$1; shift; fi
[ "${1:-}" = -- ] && shift
cores=0
for flag; do
	case $flag in
	--threads=[1-9]*) cores=0-$((${flag#--threads=} - 1)) ;;
	esac
done
pin=
command -v taskset >/dev/null 2>&1 && pin="taskset -c $cores"

printf '%-14s %10s  %s\n' model seconds result
for dir in "$models"/*/; do
	name=$(basename "$dir")
	[ -f "$dir/model.onnx" ] || continue
	start=$(date +%s.%N)
	if $pin "$gjit" "$dir/model.onnx" "$@" \
		"--input=@$dir/test_data_set_0/input_0.pb" \
		"--expected-output=@$dir/test_data_set_0/output_0.pb" \
		--tolerance-l2=1e-4 >/dev/null 2>/tmp/gilt-bench-$$.err; then
		result=ok
	else
		result="FAIL: $(grep -m1 error: /tmp/gilt-bench-$$.err | cut -c1-100)"
	fi
	end=$(date +%s.%N)
	printf '%-14s %10s  %s\n' "$name" \
		"$(awk "BEGIN { printf \"%.2f\", $end - $start }")" "$result"
done
rm -f /tmp/gilt-bench-$$.err
