#!/usr/bin/env bash
# Runs every fuzz target of the module for a fixed time each, one target
# per `go test -fuzz` (the go command fuzzes one target at a time), from
# its seed corpus committed under the package's testdata/fuzz/.
#
#   scripts/fuzz.sh 15s     # CI (.ci/run): about 3 minutes for ten targets
#   scripts/fuzz.sh 10m     # the long mode (scripts/long-tests.sh)
#
# A failure leaves the crashing input under testdata/fuzz/<target>/, where
# plain `go test` replays it; commit it with the fix. A target that fails
# only by Go 1.26's deadline race (see deadline_race) runs once more, and
# a second such race is reported, not failed: the corpus replay in
# `go test ./...` is the deterministic gate.
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
# fuzz_once runs one target and prints its output; its status is go
# test's.
fuzz_once() {
	go test -run='^$' -fuzz="^${2}\$" -fuzztime="$time" "$1" 2>&1 | tee "$log"
	return "${PIPESTATUS[0]}"
}

# deadline_race tells Go 1.26's fuzzing coordinator race (golang/go#75804,
# fixed in Go 1.27) from a finding: the target fails with only "context
# deadline exceeded" at the -fuzztime boundary, having written no failing
# input. Any other failure is real.
deadline_race() {
	grep -q 'context deadline exceeded' "$log" &&
		! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$log"
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
n=0 raced=0
while read -r pkg target; do
	echo "== fuzz $pkg $target ($time)"
	if ! fuzz_once "$pkg" "$target"; then
		if ! deadline_race; then
			exit 1
		fi
		echo "fuzz.sh: $target hit Go's fuzztime deadline race (golang/go#75804, no input written); running it again"
		raced=$((raced + 1))
		if ! fuzz_once "$pkg" "$target" && ! deadline_race; then
			exit 1
		fi
	fi
	n=$((n + 1))
done <<<"$targets"
echo "fuzzed $n targets for $time each ($raced reran after Go's deadline race)"
