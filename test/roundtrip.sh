#!/bin/sh
#
# roundtrip.sh GOPT DIR: every parsed lit input must round-trip.
#
# For each .gilt file under DIR (Inputs/ and Output/ folders aside) that is
# not an error test (it mentions neither "expected-error" nor "RUN: not"),
# print it with gopt to get A; a file gopt rejects is skipped silently (lit
# reports it if it matters). Then parse A and print it again to get B: A and
# B must be byte-identical. A crash or a sanitizer report is a failure even
# on the first print.
#

usage="usage: $0 GOPT DIR"
test $# -eq 2 || { echo "$usage" >&2 ; exit 2 ; }
gopt=$1
dir=$2
test -x "$gopt" || { echo "round-trip: $gopt is not a program (run make first)" >&2 ; exit 2 ; }
test -d "$dir" || { echo "round-trip: $dir is not a folder" >&2 ; exit 2 ; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gilt-roundtrip.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

# Sanitizers exit with a status of their own, so that a report is told
# apart from gopt rejecting its input (status 1).
sanexit=86
export ASAN_OPTIONS="exitcode=$sanexit${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="exitcode=$sanexit${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="exitcode=$sanexit${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

crashed () { test "$1" -eq "$sanexit" || test "$1" -ge 128 ; }

# gopt FILE OUT: print FILE into OUT, diagnostics into $tmp/err.
run_gopt () {
	"$gopt" --split-input-file --allow-unregistered-dialect "$1" >"$2" 2>"$tmp/err"
}

report () {
	echo "round-trip: FAIL: $1"
	shift
	"$@" | head -n 40 | sed 's/^/    /'
}

find "$dir" \( -name Inputs -o -name Output \) -prune -o -type f -name '*.gilt' -print |
	LC_ALL=C sort >"$tmp/files"

checked=0 skipped=0 failed=0
while IFS= read -r f ; do
	if grep -q -e 'expected-error' -e 'RUN: not' "$f" ; then
		continue
	fi
	run_gopt "$f" "$tmp/a.gilt"
	status=$?
	if crashed "$status" ; then
		report "$f: gopt crashed (status $status) printing it" cat "$tmp/err"
		failed=$((failed + 1))
		continue
	elif test "$status" -ne 0 ; then
		skipped=$((skipped + 1))
		continue
	fi
	checked=$((checked + 1))
	if ! run_gopt "$tmp/a.gilt" "$tmp/b.gilt" ; then
		report "$f: gopt cannot parse its own output" cat "$tmp/err"
		failed=$((failed + 1))
	elif ! cmp -s "$tmp/a.gilt" "$tmp/b.gilt" ; then
		report "$f: print -> parse -> print differs (- first print, + second print)" \
			diff -u --label "first print" --label "second print" "$tmp/a.gilt" "$tmp/b.gilt"
		failed=$((failed + 1))
	fi
done <"$tmp/files"

echo "round-trip: $checked files checked, $skipped skipped (gopt rejected them)"
if test "$failed" -ne 0 ; then
	echo "round-trip: $failed files FAILED"
	exit 1
fi
