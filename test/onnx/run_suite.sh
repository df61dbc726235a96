#!/bin/sh
# run_suite.sh - the ONNX conformance runner: runs every test of the ONNX
# backend test suite that is in scope through `gjit`, compiled (or with
# --interpret, on the reference interpreter), and compares the outcome
# with the expected-failure list.
#
#   sh run_suite.sh [--update] [--interpret | --device=cuda] GJIT ONNX_INFO [DATA_DIR [XFAIL_FILE]]
#   sh run_suite.sh --scope ONNX_INFO [DATA_DIR]
#
# The tests are the folders DATA_DIR/{node,pytorch-converted,
# pytorch-operator,simple}/TEST, each a model.onnx and one or more
# test_data_set_N folders of input_N.pb and output_N.pb. Every data set
# of a test runs as
#
#   GJIT model.onnx [--interpret | --device=cuda] --input=@input_0.pb ... \
#       --expected-output=@output_0.pb ... --tolerance=1e-3,1e-7
#
# (inputs and outputs in the order of the model's graph inputs and
# outputs, the suite's rtol and atol), and a test passes when every data
# set does: gjit exits 0. A run past TIMEOUT seconds (60) fails with
# reason "timeout".
#
# Scope (issue 9). `ONNX_INFO --scope` reads each model and leaves out
# those that use sequence, optional or string values, a random-number
# generator, the training domain (ai.onnx.preview.training) or Dropout in
# training mode (tools/onnx-info/scope.c says how each is recognized).
# They are skipped and reported with their reason, not counted. Of
# Debian's libonnx-testdata 1.12.0 (1072 tests) that leaves 1001:
#
#   node 877 of 932, pytorch-converted 82 of 82, pytorch-operator 35 of 35,
#   simple 7 of 23; the 71 skipped are 28 sequence, 18 string,
#   9 training, 6 random, 6 dropout (test_training_dropout*), 4 optional
#   (a model with several reasons counts under the first of
#   training, random, dropout, sequence, optional, string).
#
# `--scope` prints the verdict on each model and these counts, and runs
# nothing.
#
# XFAIL_FILE lists the tests expected to fail, one `folder/test_name` per
# line (`#` starts a comment, which --update fills with the first error).
# The script fails on an unexpected failure or an unexpected pass, and
# names each, so that the list only ever shrinks on purpose. A listed
# test that did not run (out of scope, or not in DATA_DIR) is only warned
# about. --update rewrites XFAIL_FILE from this run instead of comparing
# (`make update-onnx-run-xfail`).
#
# Output: one line per failing test, `FAIL` when it is not listed, `XFAIL`
# when it is, with the first line of gjit's error; `XPASS` for a listed
# test that passed; the skipped tests by reason (each one with VERBOSE=1);
# then `onnx-run: N passed, N failed, N skipped (out of scope)`.
#
# DATA_DIR defaults to /usr/share/libonnx-testdata/data (Debian's
# libonnx-testdata); without it the check is skipped. Tests run two at a
# time (JOBS overrides). PROGRESS=FILE writes each test's outcome there
# as it finishes (`name<TAB>pass|fail<TAB>why`).
#
# --device=cuda runs the models on an NVIDIA GPU (docs/gpu.md) against a
# list of their own, run-cuda-xfail.txt beside this script by default
# (`make check-onnx-run-cuda`, `make update-onnx-run-cuda-xfail`, on a
# machine with a GPU); where gjit cannot run on CUDA (no driver, no
# device) the check says why and is skipped.

set -u

TOLERANCE=1e-3,1e-7
TIMEOUT=${TIMEOUT:-60}
# --interpret, --device=cuda or nothing (compiled for the CPU); the
# per-test runs inherit it.
export BACKEND=${BACKEND:-}

# ---- one test: `--test TMP DATA GJIT NAME...` (run by xargs, below) ----
#
# Prints one line per test: `name<TAB>pass|fail<TAB>why`.

report() {
	printf '%s\t%s\t%s\n' "$name" "$1" "${2:-}"
}

# The first error line of gjit's output $1, without the data directory.
first_error() {
	err=$(grep -m1 'error:' "$1" | sed 's/^.*error: //')
	[ -n "$err" ] || err=$(grep -m1 . "$1")
	[ -n "$err" ] || err="gjit failed with no message"
	printf '%s\n' "$err" | sed "s|$data/||g" | cut -c1-300
}

# Runs gjit on model.onnx with the arguments; prints nothing and succeeds
# when it exits 0, else prints why it failed.
run_gjit() {
	timeout -k 5 "$TIMEOUT" "$gjit" "$data/$name/model.onnx" "$@" \
		>"$out" 2>&1 </dev/null
	rc=$?
	case $rc in
	0) return 0 ;;
	124) echo "timeout (${TIMEOUT}s)" ;;
	137) echo "killed (timeout, or out of memory)" ;;
	*)
		if [ $rc -gt 128 ]; then
			echo "crashed (signal $((rc - 128))): $(first_error "$out")"
		else
			first_error "$out"
		fi
		;;
	esac
	return 1
}

# Runs data set $1 of the test; prints nothing and succeeds when gjit
# matches the references, else prints why it failed. Then the same
# inputs again as constants (--fold-inputs), so that constant folding
# computes the outputs at compile time: they must be the run's own,
# bit for bit (where NumPy can hold them; else within the tolerance). Not
# on CUDA: folding computes on the host whatever the device (the CPU
# suite checks it), in the CPU's order of sums, and a second process
# would double the time each test spends creating a CUDA context.
run_set() {
	ds=$1 ins= refs= outs= saved= n=0
	while [ -f "$ds/input_$n.pb" ]; do
		ins="$ins --input=@$ds/input_$n.pb"
		n=$((n + 1))
	done
	n=0
	while [ -f "$ds/output_$n.pb" ]; do
		refs="$refs --expected-output=@$ds/output_$n.pb"
		outs="$outs --output=@$out.$n.npy"
		saved="$saved --expected-output=@$out.$n.npy"
		n=$((n + 1))
	done
	rm -f "$out".*.npy
	# The suite's paths and ours hold no spaces: the lists split on them.
	# shellcheck disable=SC2086
	run_gjit $BACKEND "--tolerance=$TOLERANCE" $ins $refs $outs || return 1
	[ "$BACKEND" = --device=cuda ] && { rm -f "$out".*.npy; return 0; }
	check="--bitwise $saved"
	n=0
	while [ -f "$ds/output_$n.pb" ]; do
		[ -f "$out.$n.npy" ] || check="--tolerance=$TOLERANCE $refs"
		n=$((n + 1))
	done
	# shellcheck disable=SC2086
	why=$(run_gjit $BACKEND --fold-inputs $ins $check) ||
		{ echo "folded at compile time: $why"; return 1; }
	rm -f "$out".*.npy
}

run_test() {
	nsets=0
	for set in "$data/$name"/test_data_set_*; do
		[ -d "$set" ] || continue
		nsets=$((nsets + 1))
		if ! why=$(run_set "$set"); then
			# Name the data set only where there is a choice.
			[ -d "$data/$name/test_data_set_1" ] &&
				why="${set##*/}: $why"
			report fail "$why"
			return
		fi
	done
	if [ $nsets -eq 0 ]; then
		report fail "no test_data_set_N folder"
	else
		report pass
	fi
}

if [ "${1:-}" = "--test" ]; then
	tmp=$2 data=$3 gjit=$4
	shift 4
	out=$tmp/out.$$
	for name in "$@"; do
		run_test
	done
	rm -f "$out"
	exit 0
fi

# ---- the whole suite ----------------------------------------------------

usage() {
	echo "usage: sh run_suite.sh [--update] [--interpret | --device=cuda] GJIT ONNX_INFO [DATA_DIR [XFAIL_FILE]]" >&2
	echo "       sh run_suite.sh --scope ONNX_INFO [DATA_DIR]" >&2
	exit 2
}

mode=run
case ${1:-} in
--update) mode=update; shift ;;
--scope) mode=scope; shift ;;
esac
case ${1:-} in
--interpret | --device=cuda)
	BACKEND=$1
	shift
	;;
esac
xfail_name=run-xfail.txt
[ "$BACKEND" = --device=cuda ] && xfail_name=run-cuda-xfail.txt
if [ $mode = scope ]; then
	[ $# -ge 1 ] || usage
	gjit= onnx_info=$1 data=${2:-/usr/share/libonnx-testdata/data}
else
	[ $# -ge 2 ] || usage
	gjit=$1 onnx_info=$2 data=${3:-/usr/share/libonnx-testdata/data}
	xfail=${4:-$(dirname "$0")/$xfail_name}
fi

if [ ! -d "$data/node" ]; then
	echo "onnx-run: no ONNX test data in '$data' (apt-get install libonnx-testdata); skipped"
	exit 0
fi
if [ -n "$gjit" ] && [ ! -x "$gjit" ]; then
	echo "onnx-run: '$gjit' is no program" >&2
	exit 2
fi
case $gjit in
'' | /*) ;;
*) gjit=$(pwd)/$gjit ;;
esac

# Without a GPU every test would fail the same way: say so once instead.
# gjit checks the driver and the device before it reads the model.
if [ "$BACKEND" = --device=cuda ]; then
	why=$("$gjit" /dev/null --device=cuda 2>&1 | grep -m1 'cannot run on CUDA')
	if [ -n "$why" ]; then
		echo "onnx-run: ${why#*error: }; skipped"
		exit 0
	fi
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

for dir in node pytorch-converted pytorch-operator simple; do
	for model in "$data/$dir"/*/model.onnx; do
		[ -f "$model" ] || continue
		printf '%s\n' "$dir/$(basename "$(dirname "$model")")"
	done
done >"$tmp/models"

# The verdict on each model: `name<TAB>in`, or `name<TAB>out<TAB>reason
# <TAB>evidence`. A model onnx-info cannot read (`?`) stays in scope, so
# that it fails rather than vanishes.
sed "s|.*|$data/&/model.onnx|" "$tmp/models" |
	xargs "$onnx_info" --scope 2>/dev/null |
	sed "s|^$data/\(.*\)/model\.onnx\t?\$|\1\tin|; s|^$data/\(.*\)/model\.onnx\t|\1\t|" |
	sort >"$tmp/scope"
if [ "$(wc -l <"$tmp/scope")" -ne "$(wc -l <"$tmp/models")" ]; then
	echo "onnx-run: '$onnx_info --scope' gave no verdict on some models" >&2
	exit 2
fi
awk -F '\t' '$2 == "in" { print $1 }' "$tmp/scope" >"$tmp/in_scope"
awk -F '\t' '$2 == "out"' "$tmp/scope" >"$tmp/skipped"
skipped=$(wc -l <"$tmp/skipped")

# `28 sequence, 18 string, ...`, most frequent first.
reasons() {
	cut -f3 "$tmp/skipped" | sort | uniq -c | sort -k1,1nr -k2 |
		awk '{ printf "%s%d %s", (NR > 1 ? ", " : ""), $1, $2 } END { print "" }'
}

list_skipped() {
	awk -F '\t' '{ printf "onnx-run: SKIP %s: %s (%s)\n", $1, $3, $4 }' "$tmp/skipped"
}

if [ $mode = scope ]; then
	list_skipped
	for dir in node pytorch-converted pytorch-operator simple; do
		awk -F '\t' -v d="$dir" 'index($1, d "/") == 1 { n++; if ($2 == "in") k++ }
			END { printf "onnx-run: %-17s %4d in scope of %4d\n", d, k, n }' "$tmp/scope"
	done
	[ "$skipped" -gt 0 ] && echo "onnx-run: skipped (out of scope): $(reasons)"
	echo "onnx-run: $(wc -l <"$tmp/in_scope") in scope, $skipped skipped, of $(wc -l <"$tmp/models") tests"
	exit 0
fi

# PROGRESS=FILE gets each test's line as it finishes: what a run stopped
# by a time limit (bench/gpu_check.sh on a lent GPU) leaves behind.
xargs -P "${JOBS:-2}" -n 4 sh "$0" --test "$tmp" "$data" "$gjit" \
	<"$tmp/in_scope" | tee "${PROGRESS:-/dev/null}" | sort >"$tmp/results"

passed=$(awk -F '\t' '$2 == "pass"' "$tmp/results" | wc -l)
failed=$(awk -F '\t' '$2 == "fail"' "$tmp/results" | wc -l)
summary() {
	[ "${VERBOSE:-0}" = 1 ] && list_skipped
	[ "$skipped" -gt 0 ] && echo "onnx-run: skipped (out of scope): $(reasons)"
	echo "onnx-run: $passed passed, $failed failed, $skipped skipped (out of scope)"
}

if [ $mode = update ]; then
	{
		echo "# Tests of the ONNX backend test suite (libonnx-testdata) that fail"
		if [ "$BACKEND" = --device=cuda ]; then
			echo "# under \`gjit --device=cuda\`: \`folder/test_name  # first error\`"
		else
			echo "# under \`gjit\` (compiled and --interpret alike): \`folder/test_name  # first error\`"
		fi
		echo "# (test/onnx/run_suite.sh). Only in-scope tests are listed; the runner"
		echo "# fails when one passes, so remove it then."
		echo "# Regenerate with: make update-onnx-run-xfail (run_suite.sh --update)."
		awk -F '\t' '$2 == "fail" { printf "%s  # %s\n", $1, $3 }' "$tmp/results"
	} >"$xfail"
	echo "onnx-run: wrote $failed expected failures to $xfail"
	summary
	exit 0
fi

if [ -f "$xfail" ]; then
	sed 's/#.*//' "$xfail" | awk 'NF { print $1 }' | sort -u >"$tmp/expected"
else
	: >"$tmp/expected"
fi

status=0
awk -F '\t' -v OFS='\t' 'FILENAME == ARGV[1] { listed[$1] = 1; next }
	$2 == "fail" { print (($1 in listed) ? "XFAIL" : "FAIL"), $1, $3 }
	$2 == "pass" && ($1 in listed) { print "XPASS", $1, "" }' \
	"$tmp/expected" "$tmp/results" >"$tmp/outcomes"
awk -F '\t' '$1 == "FAIL" || $1 == "XFAIL" { printf "onnx-run: %s %s: %s\n", $1, $2, $3 }
	$1 == "XPASS" { printf "onnx-run: XPASS %s: listed as failing, but passes\n", $2 }' \
	"$tmp/outcomes"
unexpected_fail=$(grep -c '^FAIL	' "$tmp/outcomes")
unexpected_pass=$(grep -c '^XPASS	' "$tmp/outcomes")
cut -f1 "$tmp/results" | sort | comm -13 - "$tmp/expected" >"$tmp/stale"
if [ -s "$tmp/stale" ]; then
	echo "onnx-run: warning: listed in $xfail but not run (out of scope, or not in $data):"
	sed 's/^/  /' "$tmp/stale"
fi
if [ "$unexpected_fail" -gt 0 ] || [ "$unexpected_pass" -gt 0 ]; then
	status=1
	echo "onnx-run: $unexpected_fail unexpected failures (FAIL), $unexpected_pass unexpected passes (XPASS);"
	echo "onnx-run: fix them, or after a deliberate change run \`make update-onnx-run-xfail\`"
fi
summary
exit $status
