#!/bin/sh
# import_suite.sh - checks every model of the ONNX backend test suite with
# gopt and compares the outcome with the expected-failure list.
#
#   sh import_suite.sh [--update] GOPT ONNX_INFO [DATA_DIR [XFAIL_FILE]]
#
# Each model.onnx under DATA_DIR/{node,pytorch-converted,pytorch-operator,
# simple} goes through three checks:
#
#   import      GOPT imports, verifies and prints the model;
#   round-trip  the printed module (full text, resources as hex) parses
#               back, and printing it again gives the same bytes;
#   shape       for each reference output test_data_set_0/output_N.pb,
#               the N-th result type of `@main` is the reference tensor's
#               type (as ONNX_INFO, which reads the .pb without gopt,
#               prints it). A check of a result whose reference is no
#               tensor gilt has (a string, a sequence) is skipped.
#
# A check fails for a model when any part of it does; round-trip and
# shape are skipped for a model that does not import. XFAIL_FILE lists
# the expected failures, one `folder/test_name check` per line (`#` starts
# a comment, which --update fills with the first error). The script fails on an unexpected failure
# or an unexpected pass, and names each, so that the list only ever
# shrinks on purpose. It checks what the importer, the graph dialect's
# shape inference and the printer and parser make of a model, not what the
# model computes (that is the conformance runner's business).
#
# --update rewrites XFAIL_FILE from this run instead of comparing. The
# graph dialect grows op by op; after adding ops, run
# `make update-onnx-import-xfail`.
#
# DATA_DIR defaults to /usr/share/libonnx-testdata/data (Debian's
# libonnx-testdata); without it the check is skipped. Models are checked
# two at a time (JOBS overrides).

set -u

# ---- one model: `--model TMP DATA NAME` (run by xargs, below) ----------
#
# Prints one line per check: `name<TAB>check<TAB>pass|fail|skip<TAB>why`,
# and for the shape check, which needs every model's references, a line
# `name<TAB>results<TAB>types of @main's results, comma-separated`.

report() {
	printf '%s\t%s\t%s\t%s\n' "$name" "$1" "$2" "${3:-}"
}

# The first error line of file $1, without the data directory.
first_error() {
	err=$(grep -m1 'error:' "$1" | sed 's/^.*error: //')
	[ -n "$err" ] || err=$(head -n1 "$1")
	[ -n "$err" ] || err="gopt failed with no message"
	printf '%s\n' "$err" | sed "s|$data/||g"
}

# The result types of `@main` in printed module $1, comma-separated. The
# importer's types carry no commas, spaces or parentheses of their own.
main_results() {
	sig=$(grep -m1 '^  func.func @main(' "$1")
	case $sig in
	*') -> '*) sig=${sig##*) -> } ;;
	*) sig= ;;
	esac
	sig=${sig% \{}
	sig=${sig#(}
	sig=${sig%)}
	printf '%s\n' "$sig" | sed 's/, /,/g'
}

check_model() {
	model=$data/$name/model.onnx
	p1=$tmp/p1.$$ p2=$tmp/p2.$$ err=$tmp/err.$$

	if ! "$tmp/gopt" "$model" >"$p1" 2>"$err"; then
		report import fail "$(first_error "$err")"
		report round-trip skip
		return
	fi
	report import pass

	if ! "$tmp/gopt" "$p1" >"$p2" 2>"$err"; then
		report round-trip fail "reparse: $(first_error "$err")"
	elif ! cmp -s "$p1" "$p2"; then
		report round-trip fail "the second print differs"
	else
		report round-trip pass
	fi
	report results "$(main_results "$p1")"
}

if [ "${1:-}" = "--model" ]; then
	tmp=$2 data=$3
	shift 3
	for name in "$@"; do
		check_model
	done
	rm -f "$tmp/p1.$$" "$tmp/p2.$$" "$tmp/err.$$"
	exit 0
fi

# ---- the whole suite ----------------------------------------------------

update=0
if [ "${1:-}" = "--update" ]; then
	update=1
	shift
fi
if [ $# -lt 2 ]; then
	echo "usage: sh import_suite.sh [--update] GOPT ONNX_INFO [DATA_DIR [XFAIL_FILE]]" >&2
	exit 2
fi
data=${3:-/usr/share/libonnx-testdata/data}
xfail=${4:-$(dirname "$0")/import-xfail.txt}

if [ ! -d "$data/node" ]; then
	echo "onnx-suite: no ONNX test data in '$data' (apt-get install libonnx-testdata); skipped"
	exit 0
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# One pair of binaries for the whole run, even if the build relinks them.
cp "$1" "$tmp/gopt" && cp "$2" "$tmp/onnx-info" || exit 1

for dir in node pytorch-converted pytorch-operator simple; do
	for model in "$data/$dir"/*/model.onnx; do
		[ -f "$model" ] || continue
		printf '%s\n' "$dir/$(basename "$(dirname "$model")")"
	done
done >"$tmp/models"

xargs -P "${JOBS:-2}" -n 32 sh "$0" --model "$tmp" "$data" \
	<"$tmp/models" >"$tmp/checks"

# The reference types, `folder/test_name<TAB>N<TAB>type`, from one run of
# ONNX_INFO over every reference output (`?` for no tensor gilt has).
sed "s|.*|$data/&/test_data_set_0|" "$tmp/models" |
	while read -r set; do
		for ref in "$set"/output_*.pb; do
			[ -f "$ref" ] && printf '%s\n' "$ref"
		done
	done | xargs "$tmp/onnx-info" 2>/dev/null |
	sed "s|^$data/\(.*\)/test_data_set_0/output_\([0-9]*\)\.pb\t|\1\t\2\t|" \
	>"$tmp/refs"

# The shape check of each model, from its `results` line and its
# references: a model that did not import is skipped, as is one with no
# reference gilt can read.
awk -F '\t' -v OFS='\t' '
	FILENAME == ARGV[1] { if ($3 != "?") { ref[$1, $2] = $3; nref[$1]++ } next }
	$2 != "results" { next }
	!($1 in nref) { print $1, "shape", "skip", ""; next }
	{
		n = split($3, got, ",")
		why = ""
		for (k in ref) {
			split(k, key, SUBSEP)
			if (key[1] != $1) continue
			i = key[2] + 0
			g = (i < n) ? got[i + 1] : "missing"
			# The suite stores bfloat16 references as their uint16
			# bit patterns (numpy has no bfloat16): a ui16 reference
			# stands for a bf16 result of the same shape.
			bits = g
			sub(/bf16>$/, "ui16>", bits)
			if (g != ref[k] && bits != ref[k] && why == "")
				why = "result " i " is " g ", reference " ref[k]
		}
		print $1, "shape", why == "" ? "pass" : "fail", why
	}
	' "$tmp/refs" "$tmp/checks" >"$tmp/shapes"
awk -F '\t' '$2 == "import" && $3 == "fail" { print $1 "\tshape\tskip\t" }' \
	"$tmp/checks" >>"$tmp/shapes"
grep -v "	results	" "$tmp/checks" | cat - "$tmp/shapes" | sort >"$tmp/results"

models=$(wc -l <"$tmp/models")
passed=$(awk -F '\t' '{ all[$1] = 1 } $3 == "fail" { bad[$1] = 1 }
	END { for (m in all) if (!(m in bad)) n++; print n }' "$tmp/results")
failed=$((models - passed))

# `import: N passed, N failed, N skipped`, one line per check.
breakdown() {
	for check in import round-trip shape; do
		awk -F '\t' -v c="$check" '$2 == c { n[$3]++ }
			END { printf "onnx-suite:   %-10s %d passed, %d failed, %d skipped\n",
				c, n["pass"], n["fail"], n["skip"] }' "$tmp/results"
	done
}

if [ $update -eq 1 ]; then
	{
		echo "# Checks of the ONNX backend test suite (libonnx-testdata) that gopt"
		echo "# fails: \`folder/test_name check  # first error\`, check being import,"
		echo "# round-trip or shape (test/onnx/import_suite.sh)."
		echo "# Regenerate with: make update-onnx-import-xfail (import_suite.sh --update)."
		awk -F '\t' '$3 == "fail" { printf "%s %s  # %s\n", $1, $2, $4 }' "$tmp/results"
	} >"$xfail"
	echo "onnx-suite: wrote $(grep -c '^[^#]' "$xfail") expected failures to $xfail"
	breakdown
	echo "onnx-suite: $passed passed, $failed failed"
	exit 0
fi

if [ -f "$xfail" ]; then
	sed 's/#.*//' "$xfail" | awk 'NF { print $1 " " $2 }' | sort -u >"$tmp/expected"
else
	: >"$tmp/expected"
fi
awk -F '\t' '$3 == "fail" { print $1 " " $2 }' "$tmp/results" | sort -u >"$tmp/failed"
awk -F '\t' '$3 == "pass" { print $1 " " $2 }' "$tmp/results" | sort -u >"$tmp/passed"

status=0
comm -23 "$tmp/failed" "$tmp/expected" >"$tmp/unexpected_fail"
comm -12 "$tmp/passed" "$tmp/expected" >"$tmp/unexpected_pass"
if [ -s "$tmp/unexpected_fail" ]; then
	status=1
	echo "onnx-suite: unexpected failures:"
	while read -r name check; do
		printf '  %s %s: %s\n' "$name" "$check" "$(awk -F '\t' -v n="$name" -v c="$check" \
			'$1 == n && $2 == c { print $4 }' "$tmp/results")"
	done <"$tmp/unexpected_fail"
fi
if [ -s "$tmp/unexpected_pass" ]; then
	status=1
	echo "onnx-suite: unexpected passes (remove them from $xfail, or run with --update):"
	sed 's/^/  /' "$tmp/unexpected_pass"
fi
breakdown
xfailed=$(comm -12 "$tmp/failed" "$tmp/expected" | wc -l)
echo "onnx-suite: $xfailed failed checks are expected ($xfail)"
echo "onnx-suite: $passed passed, $failed failed"
exit $status
