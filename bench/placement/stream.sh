#!/usr/bin/env bash
# stream.sh - the sim's time on a small transfer-bound workload: 12 x 1 MiB
# weights made on the host and scaled by a number, streamed three times
# (runtime/placement/testdata/offload/stream.tr), at budgets of 3 to 8 MiB
# under each strategy. The sim's clock is the cost model's (tref's default
# --sim-* rates: 25 GB/s each way, 5 us per copy or launch), so the numbers
# are the same on every machine and every run.
#
#   bench/placement/stream.sh [TREF]   TREF: a tref binary (default: built
#                                      from this checkout)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
tref=${1:-}
if [ -z "$tref" ]; then
  tref=$(mktemp -d)/tref
  (cd "$here" && go build -o "$tref" ./cmd/tref)
fi
script="$here/runtime/placement/testdata/offload/stream.tr"
printf '%-6s %-8s %12s %12s %8s %12s\n' budget strategy time_us stall_us h2d_n h2d_bytes
for mem in 3 4 5 6 8; do
  for st in flow lru genoa; do
    out=$("$tref" trace --device sim --mem "${mem}MiB" --strategy "$st" --format jsonl "$script" 2>/dev/null)
    n=$(grep -c '"kind":"h2d"' <<<"$out" || true)
    grep '"kind":"summary"' <<<"$out" | sed -E 's/.*"bytes_h2d":([0-9]+).*"stall_ns":([0-9]+),"time_ns":([0-9]+).*/\1 \2 \3/' |
      { read -r h2d stall time; printf '%-6s %-8s %12.1f %12.1f %8d %12d\n' "${mem}MiB" "$st" "$(bc -l <<<"$time/1000")" "$(bc -l <<<"$stall/1000")" "$n" "$h2d"; }
  done
done
