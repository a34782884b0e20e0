#!/usr/bin/env bash
# Side-by-side throughput of the networks of package model in phs and in
# PyTorch, on one core each: forward at batch 1 and 32, and a training step
# (forward, backward, Adam) on 32 states, for the paper's Sokoban, Witness
# and STP networks, for the ResNets on the STP input (stp-resnet, the
# default sizes, and stp-resnet512) and for the Rubik's cube's ResNet
# (rubiks-resnet256).
#
#   scripts/bench_networks.sh [ROUNDS]
#
# Builds the test binary of ./model once, then runs, ROUNDS times (default
# 5) and in an order that rotates every round, so that the variants share
# the machine's slow and fast moments:
#
#   pytorch   scripts/bench_torch.py (one measurement per round)
#   default   the model benchmarks with the backend that package nn picks
#             (OpenBLAS if it loads; the table's header names it)
#   go        the same with PHS_BLAS=go: pure Go (gonum)
#
# and prints a Markdown table of the medians over the rounds, in states/s,
# with the ratios of each phs variant to PyTorch. Environment:
#
#   BENCHTIME   seconds per measurement (default 0.5)
#   PYTHON      interpreter with PyTorch (default: /usr/bin/python3 if it
#               imports torch, else python3)
#   RAW         if set, the file to copy the raw measurements to
#
# OPENBLAS_CORETYPE, if set, reaches every variant (PyTorch's dense layers
# use OpenBLAS too); the table's header says what it was.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local

rounds=${1:-5}
benchtime=${BENCHTIME:-0.5}
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: $0 [ROUNDS]" >&2
	exit 2
fi

if [[ -z ${PYTHON:-} ]]; then
	PYTHON=python3
	if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
		PYTHON=/usr/bin/python3
	fi
fi
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
	echo "$0: $PYTHON cannot import torch; set PYTHON" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
raw=$tmp/raw.tsv
: >"$raw"

echo "building the test binary..." >&2
go test -c -o "$tmp/model.test" ./model
variants=(pytorch default go)

# gobench VARIANT BINARY [ENV...] runs the model benchmarks and appends
# "VARIANT net op batch states/s" lines to $raw. The backend that the
# benchmarks log goes to $tmp/backend.VARIANT.
gobench() {
	local variant=$1 bin=$2
	shift 2
	env "$@" "$bin" -test.run '^$' -test.bench 'Forward|TrainStep' \
		-test.benchtime "${benchtime}s" -test.cpu 1 >"$tmp/out" 2>&1 || {
		cat "$tmp/out" >&2
		return 1
	}
	awk -v variant="$variant" -v backendfile="$tmp/backend.$variant" '
		/^Benchmark(Forward|TrainStep)\// {
			split($1, part, "/")
			sub(/-[0-9]+$/, "", part[3]); sub(/-[0-9]+$/, "", part[4])
			if (part[4] ~ /^threads=/) { next } # one thread, as PyTorch
			op = part[1] == "BenchmarkForward" ? "forward" : "train"
			batch = 32
			if (part[4] ~ /^batch=/) { batch = substr(part[4], 7) }
			for (i = 2; i < NF; i++) {
				if ($(i+1) == "states/s") { v = $i }
			}
			printf "%s\t%s\t%s\t%s\t%s\n", variant, part[3], op, batch, v
		}
		/: backend: / { sub(/.*: backend: /, ""); print > backendfile }' "$tmp/out" >>"$raw"
}

torchbench() {
	"$PYTHON" scripts/bench_torch.py --repeats 1 --min-time "$benchtime" 2>/dev/null |
		awk '$1 == "bench_torch" {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			printf "pytorch\t%s\t%s\t%s\t%s\n", f["net"], f["op"], f["batch"], f["states_per_s"]
		}' >>"$raw"
}

run() {
	case $1 in
	pytorch) torchbench ;;
	default) gobench default "$tmp/model.test" ;;
	go) gobench go "$tmp/model.test" PHS_BLAS=go ;;
	esac
}

n=${#variants[@]}
for ((r = 0; r < rounds; r++)); do
	for ((i = 0; i < n; i++)); do
		v=${variants[(r + i) % n]}
		echo "round $((r + 1))/$rounds: $v" >&2
		run "$v"
	done
done
if [[ -n ${RAW:-} ]]; then
	cp "$raw" "$RAW"
fi

backend=$(sort -u "$tmp/backend.default" | paste -sd, -)
echo "phs $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo '+changes'), $(go version | cut -d' ' -f3), $($PYTHON -c 'import torch; print("torch", torch.__version__)'), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'), OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE-(unset)}, medians of $rounds rounds of ${benchtime}s, states/s"
echo "phs default backend: $backend"
echo
backend=${backend%% *}
# Medians per (variant, net, op, batch), then the table.
sort -t$'\t' -k1,1 -k2,2 -k3,3 -k4,4n -k5,5g "$raw" |
	awk -F'\t' -v variants="${variants[*]}" -v backend="$backend" '
	# group writes n rounded, with thousands separated by commas.
	function group(n,   s) {
		s = sprintf("%.0f", n)
		while (s ~ /[0-9][0-9][0-9][0-9]/) { sub(/[0-9][0-9][0-9]($|,)/, ",&", s) }
		return s
	}
	function flush() {
		if (key == "") return
		med[key] = (cnt % 2) ? vals[(cnt + 1) / 2] : (vals[cnt / 2] + vals[cnt / 2 + 1]) / 2
	}
	{
		k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
		if (k != key) { flush(); key = k; cnt = 0 }
		vals[++cnt] = $5
	}
	END {
		flush()
		nv = split(variants, v, " ")
		name["pytorch"] = "PyTorch"; name["default"] = "phs default (" backend ")"
		name["go"] = "phs PHS_BLAS=go"
		line = "| network | measurement |"; sep = "|---|---|"
		for (i = 1; i <= nv; i++) { line = line " " name[v[i]] " |"; sep = sep "---:|" }
		for (i = 2; i <= nv; i++) { line = line " " name[v[i]] " / PyTorch |"; sep = sep "---:|" }
		print line; print sep
		nn_ = split("sokoban witness stp stp-resnet stp-resnet512 rubiks-resnet256", nets, " ")
		split("forward forward train", ops, " "); split("1 32 32", batches, " ")
		split("forward b=1|forward b=32|train step (32)", label, "|")
		for (a = 1; a <= nn_; a++) for (b = 1; b <= 3; b++) {
			line = "| " nets[a] " | " label[b] " |"
			for (i = 1; i <= nv; i++) {
				k = v[i] SUBSEP nets[a] SUBSEP ops[b] SUBSEP batches[b]
				line = line sprintf(" %s |", (k in med) ? group(med[k]) : "–")
			}
			t = "pytorch" SUBSEP nets[a] SUBSEP ops[b] SUBSEP batches[b]
			for (i = 2; i <= nv; i++) {
				k = v[i] SUBSEP nets[a] SUBSEP ops[b] SUBSEP batches[b]
				line = line sprintf(" %s |", (k in med && t in med && med[t] > 0) ? sprintf("%.2f", med[k] / med[t]) : "–")
			}
			print line
		}
	}'
