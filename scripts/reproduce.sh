#!/usr/bin/env bash
# Reproduce the test tables of docs/RESULTS.md from the committed models and
# the data files, printing each of our rows beside the paper's.
#
#   scripts/reproduce.sh [witness|sokoban|stp]...    (default: all three)
#
# Environment:
#
#   DATA      the data sets, laid out as "phs data fetch" leaves them
#             (default: data; for example DATA=../shared/data)
#   OUT       where the per-problem JSON lines and the logs of the tests go
#             (default: reproduce-out)
#   WORKERS   searches in parallel (default: all cores)
#   LIMIT     the time limit per problem of the fixed-limit tables
#             (default: 10s, about as many expansions as the paper's 30
#             minutes of its Python code)
#
# For each table row it runs "phs test" (the paper's Bootstrap test: budget
# 2,000, or 7,000 for the sliding-tile puzzle, doubled every round until
# every problem is solved, or for at most ROUNDS rounds where the row says
# so; for the fixed-limit tables, one search of each of the first 100
# problems with LIMIT as its time limit) and prints a Markdown table: our solved count, mean solution length,
# mean expansions and mean time per solved problem, then the paper's
# (Table 1; for the rows of one network under every algorithm the
# appendix table of the network trained with PHS*; for the fixed-limit
# rows the appendix table of a 30-minute limit per problem). The paper's times are of
# its Python code on other hardware; ours are per search on one core.
# A domain without a committed model says so and is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local

DATA=${DATA:-data}
OUT=${OUT:-reproduce-out}
WORKERS=${WORKERS:-0}
LIMIT=${LIMIT:-10s}
domains=("$@")
if [[ ${#domains[@]} -eq 0 ]]; then
	domains=(witness sokoban stp)
fi
for d in "${domains[@]}"; do
	case $d in
	witness | sokoban | stp) ;;
	*)
		echo "usage: $0 [witness|sokoban|stp]..." >&2
		exit 2
		;;
	esac
done

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/phs" ./cmd/phs
mkdir -p "$OUT"

# row NAME PAPER DOMAIN MODEL ALG ROUNDS [FLAGS...] FILE: one table row.
# PAPER is the paper's "solved | length | expansions | time" cells; ROUNDS 0
# means until every problem is solved, "fixed" the fixed-limit test; FLAGS
# are more flags of "phs test", which also name the row's output files.
row() {
	local name=$1 paper=$2 domain=$3 model=$4 alg=$5 rounds=$6
	shift 6
	local tag
	tag=$(printf '%s' "${@:1:$#-1}")
	local out="$OUT/${model//\//_}-$alg$tag.jsonl" how=(-rounds "$rounds")
	if [[ $rounds == fixed ]]; then
		out="$OUT/${model//\//_}-$alg$tag-fixed.jsonl" how=(-fixed -first 100 -timeout "$LIMIT")
	fi
	local summary
	if ! summary=$("$bin/phs" test -domain "$domain" -model "$model" -alg "$alg" "${how[@]}" \
		-workers "$WORKERS" -progress 0 -out "$out" "$@" 2>"${out%.jsonl}.log"); then
		cat "${out%.jsonl}.log" >&2
		exit 1
	fi
	summary=$(tail -n 1 <<<"$summary")
	# The summary's last line: algorithm, solved/total, length, expansions,
	# time, then the median and maximum expansions.
	read -r _ solved length expansions time _ <<<"$summary"
	echo "| $name | $solved | $length | $expansions | $time | $paper |"
}

header() {
	echo
	echo "### $1"
	echo
	echo "| | solved | length | expansions | time (s) | paper: solved | length | expansions | time (s) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
}

need() {
	local f
	for f in "$@"; do
		if [[ ! -e $f ]]; then
			echo "$0: $f is missing: fetch the data sets (phs data fetch -dir $DATA) or set DATA" >&2
			exit 1
		fi
	done
}

# committed MODEL DOMAIN: whether MODEL is in the repository; if not, it says
# so on standard error.
committed() {
	[[ -e $1/config.json ]] && return
	echo "$2: no committed model ($1) yet: skipped" >&2
	return 1
}

witness() {
	local test=$DATA/witness/puzzles_4x4_test.txt
	need "$test"
	header "The Witness 4x4, each algorithm with its own network (Table 1)"
	row "LevinTS (models/witness)" "1,000 | 14.8 | 520.2 | 3.2" witness models/witness levints 0 "$test"
	row "PHS_h (results/witness-phsh/model)" "1,000 | 15.0 | 408.1 | 3.0" witness results/witness-phsh/model phsh 0 "$test"
	row "PHS* (results/witness-phsstar/model)" "1,000 | 15.0 | 781.5 | 5.4" witness results/witness-phsstar/model phsstar 0 "$test"
	row "PUCT, c = 1 (results/witness-puct-budget16k/model, trained at T = 6)" "1,000 | 15.4 | 4,212.1 | 23.6" witness results/witness-puct-budget16k/model puct 0 "$test"
	row "PUCT, c = 1 (results/witness-puct-budget16k/model), one descent at a time" "1,000 | 15.4 | 4,212.1 | 23.6" witness results/witness-puct-budget16k/model puct 0 -batch 1 "$test"
	row "WA*, w = 1.5 (results/witness-wastar/model)" "999 | 14.6 | ≥18,345.2 | ≥71.5" witness results/witness-wastar/model wastar 0 "$test"
	row "A* (results/witness-astar/model)" "878 | 13.6 | ≥9,022.3 | ≥53.9" witness results/witness-astar/model astar 0 "$test"
	row "GBFS (results/witness-gbfs/model)" "290 | 13.3 | ≥10,127.9 | ≥44.6" witness results/witness-gbfs/model gbfs 0 "$test"
	header "The Witness 4x4, the PHS* network under every algorithm, 3 rounds (paper: all rounds)"
	local m=results/witness-phsstar/model
	row "PHS_h" "1,000 | 14.9 | 869.4 | 4.7" witness $m phsh 3 "$test"
	row "LevinTS" "1,000 | 14.9 | 903.4 | 4.9" witness $m levints 3 "$test"
	row "PUCT, c = 1" "1,000 | 15.0 | 3,798.8 | 21.0" witness $m puct 3 "$test"
	row "A*" "1,000 | 14.2 | 20,390.4 | 97.7" witness $m astar 3 "$test"
	row "WA*, w = 1.5" "927 | 14.1 | ≥19,411.9 | ≥90.0" witness $m wastar 3 "$test"
	row "GBFS" "444 | 15.4 | ≥23,986.0 | ≥95.5" witness $m gbfs 3 "$test"
	header "The Witness 4x4, each algorithm with its own network, the first 100 problems, $LIMIT per problem (paper: 30 min)"
	row "LevinTS (models/witness)" "100 | 13.9 | 187.1 | 1.2" witness models/witness levints fixed "$test"
	row "PHS_h (results/witness-phsh/model)" "100 | 13.8 | 193.6 | 1.3" witness results/witness-phsh/model phsh fixed "$test"
	row "PHS* (results/witness-phsstar/model)" "100 | 13.7 | 181.1 | 1.4" witness results/witness-phsstar/model phsstar fixed "$test"
	row "PUCT, c = 1 (results/witness-puct-budget16k/model, trained at T = 6)" "100 | 14.6 | 3,075.3 | 20.8" witness results/witness-puct-budget16k/model puct fixed "$test"
	row "PUCT, c = 1 (results/witness-puct-budget16k/model), one descent at a time" "100 | 14.6 | 3,075.3 | 20.8" witness results/witness-puct-budget16k/model puct fixed -batch 1 "$test"
	row "WA*, w = 1.5 (results/witness-wastar/model)" "100 | 13.8 | 11,503.8 | 39.9" witness results/witness-wastar/model wastar fixed "$test"
	row "A* (results/witness-astar/model)" "100 | 13.6 | 11,337.7 | 52.0" witness results/witness-astar/model astar fixed "$test"
	row "GBFS (results/witness-gbfs/model)" "100 | 14.7 | 44,428.2 | 135.7" witness results/witness-gbfs/model gbfs fixed "$test"
}

sokoban() {
	local m=results/sokoban-phsstar/model
	committed $m sokoban || return 0
	local test=$DATA/boxoban/unfiltered/test/000.txt
	need "$test"
	header "Sokoban (Boxoban 10x10 unfiltered), each algorithm with its own network (Table 1)"
	row "PHS* (results/sokoban-phsstar/model)" "1,000 | 37.6 | 1,522.1 | 11.3" sokoban $m phsstar 0 "$test"
	row "PHS*, trained and searched with deadlocks pruned, temperature 5 (models/sokoban, not the paper's domain)" "1,000 | 37.6 | 1,522.1 | 11.3" sokoban models/sokoban phsstar 0 "$test"
	row "PHS_h (results/sokoban-phsh/model)" "1,000 | 39.1 | 2,130.4 | 18.6" sokoban results/sokoban-phsh/model phsh 0 "$test"
	row "PHS_h, and a pass at 1e-5 (results/sokoban-phsh-lowlr/model)" "1,000 | 39.1 | 2,130.4 | 18.6" sokoban results/sokoban-phsh-lowlr/model phsh 0 "$test"
	row "LevinTS (results/sokoban-levints/model)" "1,000 | 40.1 | 2,640.4 | 19.5" sokoban results/sokoban-levints/model levints 0 "$test"
	row "LevinTS, and a pass at 1e-5 (results/sokoban-levints-lowlr/model)" "1,000 | 40.1 | 2,640.4 | 19.5" sokoban results/sokoban-levints-lowlr/model levints 0 "$test"
	row "PHS*, and a pass at 1e-5 (results/sokoban-phsstar-lowlr/model)" "1,000 | 37.6 | 1,522.1 | 11.3" sokoban results/sokoban-phsstar-lowlr/model phsstar 0 "$test"
	row "WA*, w = 1.5 (results/sokoban-wastar/model)" "1,000 | 34.5 | 3,729.1 | 25.5" sokoban results/sokoban-wastar/model wastar 0 "$test"
	row "WA*, w = 1.5, and a pass at 1e-5 (results/sokoban-wastar-lowlr/model)" "1,000 | 34.5 | 3,729.1 | 25.5" sokoban results/sokoban-wastar-lowlr/model wastar 0 "$test"
	row "A* (results/sokoban-astar/model), 9 rounds" "995 | 32.7 | ≥8,696.8 | ≥61.7" sokoban results/sokoban-astar/model astar 9 "$test"
	row "GBFS (results/sokoban-gbfs/model), 9 rounds" "914 | 36.4 | ≥5,040.0 | ≥34.0" sokoban results/sokoban-gbfs/model gbfs 9 "$test"
	row "A*, and a pass at 1e-5 (results/sokoban-astar-lowlr/model), 9 rounds" "995 | 32.7 | ≥8,696.8 | ≥61.7" sokoban results/sokoban-astar-lowlr/model astar 9 "$test"
	row "GBFS, and a pass at 1e-5 (results/sokoban-gbfs-lowlr/model), 9 rounds" "914 | 36.4 | ≥5,040.0 | ≥34.0" sokoban results/sokoban-gbfs-lowlr/model gbfs 9 "$test"
	row "PUCT, c = 1 (results/sokoban-puct/model), 2 rounds" "229 | 24.9 | ≥10,021.3 | ≥39.7" sokoban results/sokoban-puct/model puct 2 "$test"
	header "Sokoban, the PHS* network under every algorithm (paper: all rounds)"
	row "PHS_h" "1,000 | 38.0 | 1,696.2 | 10.6" sokoban $m phsh 0 "$test"
	row "LevinTS" "1,000 | 38.1 | 1,760.5 | 11.9" sokoban $m levints 0 "$test"
	row "WA*, w = 1.5, 4 rounds" "1,000 | 33.6 | 5,461.8 | 36.8" sokoban $m wastar 4 "$test"
	row "A*, 4 rounds" "1,000 | 31.1 | 9,043.5 | 51.8" sokoban $m astar 4 "$test"
	row "GBFS, 4 rounds" "856 | 36.0 | ≥7,096.0 | ≥52.4" sokoban $m gbfs 4 "$test"
	row "PUCT, c = 1, 4 rounds" "902 | 42.6 | ≥11,329.8 | ≥83.8" sokoban $m puct 4 "$test"
	header "Sokoban, each algorithm with its own network, the first 100 levels, $LIMIT per level (paper: 30 min)"
	row "PHS* (results/sokoban-phsstar/model)" "100 | 37.3 | 717.3 | 5.6" sokoban $m phsstar fixed "$test"
	row "WA*, w = 1.5 (results/sokoban-wastar/model)" "100 | 34.1 | 1,863.5 | 13.7" sokoban results/sokoban-wastar/model wastar fixed "$test"
	row "WA*, w = 1.5, and a pass at 1e-5 (results/sokoban-wastar-lowlr/model)" "100 | 34.1 | 1,863.5 | 13.7" sokoban results/sokoban-wastar-lowlr/model wastar fixed "$test"
	row "PHS*, and a pass at 1e-5 (results/sokoban-phsstar-lowlr/model)" "100 | 37.3 | 717.3 | 5.6" sokoban results/sokoban-phsstar-lowlr/model phsstar fixed "$test"
	row "PHS_h, and a pass at 1e-5 (results/sokoban-phsh-lowlr/model)" "100 | 39.5 | 848.2 | 6.7" sokoban results/sokoban-phsh-lowlr/model phsh fixed "$test"
	row "LevinTS, and a pass at 1e-5 (results/sokoban-levints-lowlr/model)" "100 | 40.0 | 1,392.5 | 10.5" sokoban results/sokoban-levints-lowlr/model levints fixed "$test"
	row "PHS_h (results/sokoban-phsh/model)" "100 | 39.5 | 848.2 | 6.7" sokoban results/sokoban-phsh/model phsh fixed "$test"
	row "LevinTS (results/sokoban-levints/model)" "100 | 40.0 | 1,392.5 | 10.5" sokoban results/sokoban-levints/model levints fixed "$test"
	row "A* (results/sokoban-astar/model)" "100 | 32.5 | 7,064.4 | 49.4" sokoban results/sokoban-astar/model astar fixed "$test"
	row "GBFS (results/sokoban-gbfs/model)" "99 | 37.7 | 9,841.0 | 63.9" sokoban results/sokoban-gbfs/model gbfs fixed "$test"
	row "A*, and a pass at 1e-5 (results/sokoban-astar-lowlr/model)" "100 | 32.5 | 7,064.4 | 49.4" sokoban results/sokoban-astar-lowlr/model astar fixed "$test"
	row "GBFS, and a pass at 1e-5 (results/sokoban-gbfs-lowlr/model)" "99 | 37.7 | 9,841.0 | 63.9" sokoban results/sokoban-gbfs-lowlr/model gbfs fixed "$test"
	row "PUCT, c = 1 (results/sokoban-puct/model)" "41 | 38.2 | 60,012.5 | 425.0" sokoban results/sokoban-puct/model puct fixed "$test"
}

stp() {
	committed models/stp stp || return 0
	local test=$DATA/stp/puzzles_5x5_test.txt
	need "$test"
	local phs=results/stp-phsstar/model
	header "The sliding-tile puzzle 5x5, each algorithm with its own network (Table 1)"
	row "WA*, w = 1.5 (models/stp)" "1,000 | 129.8 | 1,989.8 | 1.6" stp models/stp wastar 0 "$test"
	row "WA*, w = 1.5 (results/stp-wastar/model, before the passes at 1e-5)" "1,000 | 129.8 | 1,989.8 | 1.6" stp results/stp-wastar/model wastar 0 "$test"
	row "PHS* ($phs)" "1,000 | 224.0 | 2,867.2 | 2.8" stp $phs phsstar 0 "$test"
	row "LevinTS (results/stp-levints/model), 2 rounds" "9 | 145.1 | ≥39,005.6 | ≥31.1" stp results/stp-levints/model levints 2 "$test"
	row "PHS_h (results/stp-phsh/model), 2 rounds" "4 | 119.5 | ≥58,692.0 | ≥55.3" stp results/stp-phsh/model phsh 2 "$test"
	row "A* (results/stp-astar/model), 2 rounds" "3 | 87.3 | ≥34,146.3 | ≥27.2" stp results/stp-astar/model astar 2 "$test"
	row "GBFS (results/stp-gbfs/model), 2 rounds" "0 | – | – | –" stp results/stp-gbfs/model gbfs 2 "$test"
	row "PUCT, c = 1 (results/stp-puct/model), 2 rounds" "0 | – | – | –" stp results/stp-puct/model puct 2 "$test"
	header "The sliding-tile puzzle 5x5, the PHS* network under every algorithm"
	row "PHS_h" "1,000 | 231.1 | 3,026.7 | 2.5" stp $phs phsh 0 "$test"
	row "LevinTS" "1,000 | 233.9 | 3,175.5 | 2.4" stp $phs levints 0 "$test"
	row "WA*, w = 1.5" "916 | 175.4 | ≥117,187.5 | ≥80.8" stp $phs wastar 0 "$test"
	row "GBFS" "998 | 390.2 | ≥72,444.5 | ≥50.0" stp $phs gbfs 0 "$test"
	row "A*" "835 | 153.3 | ≥112,369.6 | ≥81.4" stp $phs astar 0 "$test"
	row "PUCT, c = 1, 9 rounds" "786 | 220.9 | ≥30,722.6 | ≥115.7" stp $phs puct 9 "$test"
	header "The sliding-tile puzzle 5x5, each algorithm with its own network, the first 100 problems, $LIMIT per problem (paper: 30 min)"
	row "WA*, w = 1.5 (models/stp)" "100 | 128.9 | 1,957.8 | 0.9" stp models/stp wastar fixed "$test"
	row "WA*, w = 1.5 (results/stp-wastar/model)" "100 | 128.9 | 1,957.8 | 0.9" stp results/stp-wastar/model wastar fixed "$test"
	row "PHS* ($phs)" "100 | 225.2 | 2,883.0 | 1.7" stp $phs phsstar fixed "$test"
	row "LevinTS (results/stp-levints/model)" "22 | 154.5 | 1,074,269.4 | 676.9" stp results/stp-levints/model levints fixed "$test"
	row "PHS_h (results/stp-phsh/model)" "14 | 155.4 | 1,314,654.1 | 907.0" stp results/stp-phsh/model phsh fixed "$test"
	row "A* (results/stp-astar/model)" "2 | 87.0 | 897,140.5 | 440.8" stp results/stp-astar/model astar fixed "$test"
	row "GBFS (results/stp-gbfs/model)" "0 | – | – | –" stp results/stp-gbfs/model gbfs fixed "$test"
	row "PUCT, c = 1 (results/stp-puct/model)" "0 | – | – | –" stp results/stp-puct/model puct fixed "$test"
}

for d in "${domains[@]}"; do
	"$d"
done
