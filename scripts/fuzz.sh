#!/usr/bin/env bash
# Runs every fuzz target of the module for a fixed time each, one target
# per `go test -fuzz` (the go command fuzzes one target at a time), from
# its seed corpus committed under the package's testdata/fuzz/.
#
#   scripts/fuzz.sh 15s     # CI (.ci/run): about 3 minutes for ten targets
#   scripts/fuzz.sh 10m     # the long mode (scripts/long-tests.sh)
#
# A failure leaves the crashing input under testdata/fuzz/<target>/, where
# plain `go test` replays it; commit it with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-15s}
targets=$(grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
	pkg=$(dirname "$f")
	grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed "s|^func |$pkg |"
done)
if [ -z "$targets" ]; then
	echo "no fuzz targets found" >&2
	exit 1
fi
n=0
while read -r pkg target; do
	echo "== fuzz $pkg $target ($time)"
	go test -run='^$' -fuzz="^${target}\$" -fuzztime="$time" "$pkg"
	n=$((n + 1))
done <<<"$targets"
echo "fuzzed $n targets for $time each"
