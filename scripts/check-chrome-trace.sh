#!/usr/bin/env bash
# Loads `tref trace --format chrome` output with a real trace importer,
# Chrome DevTools' trace engine (npm @paulirish/trace_engine, run in
# Node), and checks that it sees every slice, ops and each copy direction
# on threads of their own with nothing overlapping, named threads, and the
# memory counters. Traces every examples/offload/*.tr whose header gives
# a `tref trace` command, with its flags (blocks.tr is a module the others
# import), and runtime/placement/trace/testdata/offload.tr (evictions,
# write-backs, overlapping disk reads).
#
# Needs go, node >= 18 and npm (the engine is installed once into
# $TREF_TRACE_ENGINE_DIR, default ~/.cache/tref/trace-engine).
set -euo pipefail
cd "$(dirname "$0")/.."

engine_version=0.0.65
dir=${TREF_TRACE_ENGINE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tref/trace-engine}
if ! grep -qs "\"version\": \"$engine_version\"" "$dir/node_modules/@paulirish/trace_engine/package.json"; then
	mkdir -p "$dir"
	(cd "$dir" && npm install --silent --no-audit --no-fund --no-save "@paulirish/trace_engine@$engine_version" >/dev/null)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/tref" ./cmd/tref

traces=()
for f in examples/offload/*.tr; do
	# The header's "tref trace FLAGS file" line, if any.
	flags=$(sed -n 's/^#[[:space:]]*tref trace \(.*\) examples\/offload\/.*\.tr$/\1/p' "$f" | head -1)
	[ -n "$flags" ] || continue
	out="$work/$(basename "$f" .tr).json"
	# shellcheck disable=SC2086 # flags are words
	"$work/tref" trace $flags --format chrome -o "$out" "$f" >/dev/null
	traces+=("$out")
done
# The test script writes a file next to itself: run a copy.
cp runtime/placement/trace/testdata/offload.tr "$work/disk.tr"
(cd "$work" && ./tref trace --device sim --mem 160KiB --format chrome -o disk.json disk.tr >/dev/null)
traces+=("$work/disk.json")

node scripts/check-chrome-trace.mjs "$dir" "${traces[@]}"
