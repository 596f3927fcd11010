#!/bin/sh
# Benchmarks of issue 7: lazy safetensors loading (a 500 MiB file in a
# temporary directory) and Fashion-MNIST inference throughput of tref's
# examples against Debian's python3-torch on the same machine.
#
#   bench/formats/run.sh [runs]        from the repository root
set -eu
runs=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# $(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty), $(go env GOVERSION), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
echo "## safetensors: open and first touch"
go run ./bench/formats -mb 500 -tensors 100 -runs "$runs" -dir "$tmp"

echo "## Fashion-MNIST inference, 10000 test images (median of $runs)"
go build -o "$tmp/tref" ./cmd/tref
for m in mlp cnn; do
	for i in $(seq "$runs"); do
		"$tmp/tref" run "examples/fashion_mnist/$m.tr" | sed -n 's/^inference: [0-9]* images in \([0-9.e-]*\) s$/\1/p'
	done | sort -g | awk -v m="$m" '{t[NR]=$1} END {s=t[int((NR+1)/2)]; printf "tref  %s %.4f s %.0f images/s\n", m, s, 10000/s}'
done
/usr/bin/python3 bench/formats/torch_infer.py --runs "$runs"
