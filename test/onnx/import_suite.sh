#!/bin/sh
# import_suite.sh - imports every model of the ONNX backend test suite with
# gopt and compares the outcome with the expected-failure list.
#
#   sh import_suite.sh [--update] GOPT [DATA_DIR [XFAIL_FILE]]
#
# Each model.onnx under DATA_DIR/{node,pytorch-converted,pytorch-operator,
# simple} is imported, verified and printed (constants elided) by GOPT. A
# model listed in XFAIL_FILE (one `folder/test_name` per line, `#` starts a
# comment) is expected to fail. The script fails on an unexpected failure
# or an unexpected pass, and names each, so that the list only ever
# shrinks on purpose. It checks that the importer and the graph dialect
# accept a model, not what the model computes (that is the conformance
# runner's business).
#
# --update rewrites XFAIL_FILE from this run instead of comparing, each
# failing model with the first line of its error. The graph dialect grows
# op by op; after adding ops, run `make update-onnx-import-xfail`.
#
# DATA_DIR defaults to /usr/share/libonnx-testdata/data (Debian's
# libonnx-testdata); without it the check is skipped.

set -u
update=0
if [ "${1:-}" = "--update" ]; then
	update=1
	shift
fi
if [ $# -lt 1 ]; then
	echo "usage: sh import_suite.sh [--update] GOPT [DATA_DIR [XFAIL_FILE]]" >&2
	exit 2
fi
gopt=$1
data=${2:-/usr/share/libonnx-testdata/data}
xfail=${3:-$(dirname "$0")/import-xfail.txt}

if [ ! -d "$data/node" ]; then
	echo "onnx-import: no ONNX test data in '$data' (apt-get install libonnx-testdata); skipped"
	exit 0
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# One binary for the whole run, even if the build relinks it meanwhile.
cp "$gopt" "$tmp/gopt" || exit 1
gopt=$tmp/gopt

# One line per model: `folder/test_name<TAB>first error line`, or nothing
# after the tab for a model that imported.
for dir in node pytorch-converted pytorch-operator simple; do
	for model in "$data/$dir"/*/model.onnx; do
		[ -f "$model" ] || continue
		name=$dir/$(basename "$(dirname "$model")")
		if "$gopt" --elide-constants=16 "$model" >/dev/null 2>"$tmp/err"; then
			printf '%s\t\n' "$name"
		else
			err=$(grep -m1 'error:' "$tmp/err" | sed 's/^.*error: //')
			[ -n "$err" ] || err=$(head -n1 "$tmp/err")
			[ -n "$err" ] || err="gopt failed with no message"
			printf '%s\t%s\n' "$name" "$err"
		fi
	done
done >"$tmp/results"

passed=$(awk -F '\t' '$2 == ""' "$tmp/results" | wc -l)
failed=$(awk -F '\t' '$2 != ""' "$tmp/results" | wc -l)

if [ $update -eq 1 ]; then
	{
		echo "# Models of the ONNX backend test suite (libonnx-testdata) that gopt"
		echo "# cannot import yet, with the first error of each."
		echo "# Regenerate with: make update-onnx-import-xfail (import_suite.sh --update)."
		awk -F '\t' '$2 != "" { printf "%s  # %s\n", $1, $2 }' "$tmp/results"
	} >"$xfail"
	echo "onnx-import: wrote $failed expected failures to $xfail"
	echo "onnx-import: $passed passed, $failed failed"
	exit 0
fi

if [ -f "$xfail" ]; then
	sed 's/#.*//' "$xfail" | awk 'NF { print $1 }' | sort -u >"$tmp/expected"
else
	: >"$tmp/expected"
fi
awk -F '\t' '$2 != "" { print $1 }' "$tmp/results" | sort -u >"$tmp/failed"
awk -F '\t' '$2 == "" { print $1 }' "$tmp/results" | sort -u >"$tmp/passed"

status=0
comm -23 "$tmp/failed" "$tmp/expected" >"$tmp/unexpected_fail"
comm -12 "$tmp/passed" "$tmp/expected" >"$tmp/unexpected_pass"
if [ -s "$tmp/unexpected_fail" ]; then
	status=1
	echo "onnx-import: unexpected failures:"
	while read -r name; do
		printf '  %s: %s\n' "$name" "$(awk -F '\t' -v n="$name" '$1 == n { print $2 }' "$tmp/results")"
	done <"$tmp/unexpected_fail"
fi
if [ -s "$tmp/unexpected_pass" ]; then
	status=1
	echo "onnx-import: unexpected passes (remove them from $xfail, or run with --update):"
	sed 's/^/  /' "$tmp/unexpected_pass"
fi
xfailed=$(comm -12 "$tmp/failed" "$tmp/expected" | wc -l)
echo "onnx-import: $xfailed of the failures are expected ($xfail)"
echo "onnx-import: $passed passed, $failed failed"
exit $status
