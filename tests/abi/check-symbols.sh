#!/bin/sh
# SPDX-License-Identifier: MIT
# Check the ABI of a built librtf: its SONAME, and that the dynamic symbols it
# defines (type, name, version) are exactly those listed in EXPECTED.
# usage: check-symbols.sh LIBRARY EXPECTED
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 LIBRARY EXPECTED" >&2
    exit 2
fi
lib=$1
expected=$2

for tool in nm readelf diff; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "skipped: $tool (binutils/diffutils) is not installed" >&2
        exit 77
    fi
done

status=0

soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$soname" != "librtf.so.1" ]; then
    echo "FAIL: SONAME of $lib is '$soname', expected 'librtf.so.1'" >&2
    status=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep -v -e '^#' -e '^[[:space:]]*$' "$expected" | LC_ALL=C sort >"$tmp/expected"
# "0000000000001234 T rtf_connect@@LIBRTF_1" -> "T rtf_connect@@LIBRTF_1";
# the version node itself shows up as "A LIBRTF_1".
nm -D --defined-only --with-symbol-versions "$lib" |
    awk 'NF == 3 { print $2, $3 } NF == 2 { print $1, $2 }' |
    LC_ALL=C sort >"$tmp/actual"

if ! diff -u "$tmp/expected" "$tmp/actual" >"$tmp/diff"; then
    echo "FAIL: exported symbols of $lib differ from $expected (- expected, + actual):" >&2
    cat "$tmp/diff" >&2
    echo "A new function goes into a new version node of librtf.map, and into $expected." >&2
    status=1
fi

if [ $status -eq 0 ]; then
    echo "ok: SONAME $soname, $(wc -l <"$tmp/actual") dynamic symbols as expected"
fi
exit $status
