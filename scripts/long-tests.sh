#!/usr/bin/env bash
# The long mode: every fuzz target for 10 minutes (FUZZTIME) and the
# placement differential test under random budgets for an hour
# (DIFFTIME, TestDifferentialLong, built only with the `long` tag).
# About 2 hours 45 minutes on 2 cores; not part of CI. Record a run in
# bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10m}
difftime=${DIFFTIME:-1h}
start=$(date +%s)
./scripts/fuzz.sh "$fuzztime"
echo "== placement differential test, random budgets ($difftime)"
go test -tags long -timeout 0 -run '^TestDifferentialLong$' -v ./runtime/placement -diff-duration "$difftime" | grep -E '^(---|ok|FAIL|PASS)|seed|programs'
echo "long tests passed in $(( ($(date +%s) - start) / 60 )) minutes (fuzz $fuzztime per target, differential $difftime)"
