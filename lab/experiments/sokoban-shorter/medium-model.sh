#!/bin/sh
# medium-model.sh regenerates the network for hard Sokoban levels
# (sections "Dead ends: a network for hard levels", "Too few goals" and
# "Stuck subsets" of README.md; searched with -batch 16), which the
# repository does not hold for its size limit: from
# the shipped network, the states its searches (at temperature 3) expand
# off their solution's path on 2,000 medium and 2,000 unfiltered training
# levels, their optimal solutions or dead ends (sokopt), and 3 epochs of
# imitate -dead 400 on them and on the optimal solutions of 8,000
# training levels.
# About 15 minutes of one core. Run it from the lab directory:
#
#	sh experiments/sokoban-shorter/medium-model.sh DATA WORK
#
# DATA is the data directory (the one holding boxoban/); WORK, a new
# directory, gets the intermediate files and the network, WORK/hard/epoch-3,
# at temperature 3 in its config.json.
set -eu
data=$1
work=$2
MT=$data/boxoban/medium/train
TR=$data/boxoban/unfiltered/train
mkdir -p "$work"
go build -o "$work/offpath" ./cmd/offpath
go build -o "$work/imitate" ./cmd/imitate
(cd .. && go build -o "$work/sokopt" ./cmd/sokopt)
ship=../models/sokoban
for f in 000 001 002 003; do
	"$work/sokopt" -workers 1 -o "$work/mopt-$f.jsonl" "$MT/$f.txt"
	"$work/sokopt" -workers 1 -o "$work/opt-$f.jsonl" "$TR/$f.txt"
done
for i in 0 1; do
	f=00$i
	"$work/offpath" -model $ship -temperature 3 -per 8 -seed $((i + 1)) -o "$work/off-m$f.txt" "$MT/$f.txt"
	"$work/offpath" -model $ship -temperature 3 -per 8 -seed $((i + 101)) -o "$work/off-u$f.txt" "$TR/$f.txt"
	"$work/sokopt" -workers 1 -o "$work/off-m$f.jsonl" "$work/off-m$f.txt"
	"$work/sokopt" -workers 1 -o "$work/off-u$f.jsonl" "$work/off-u$f.txt"
done
w=$work
"$w/imitate" -model $ship -out "$w/hard" -dead 400 -epochs 3 \
	"$MT/000.txt" "$w/mopt-000.jsonl" "$MT/001.txt" "$w/mopt-001.jsonl" "$MT/002.txt" "$w/mopt-002.jsonl" \
	"$w/off-m000.txt" "$w/off-m000.jsonl" \
	"$TR/000.txt" "$w/opt-000.jsonl" "$TR/001.txt" "$w/opt-001.jsonl" "$TR/002.txt" "$w/opt-002.jsonl" \
	"$w/off-u000.txt" "$w/off-u000.jsonl" "$w/off-m001.txt" "$w/off-m001.jsonl" "$w/off-u001.txt" "$w/off-u001.jsonl" \
	"$MT/003.txt" "$w/mopt-003.jsonl" "$TR/003.txt" "$w/opt-003.jsonl"
# The network is searched at temperature 3, the shipped one's when it was
# made; its config.json has the shipped network's of today.
sed -i 's/"temperature": [0-9.]*/"temperature": 3/' "$w/hard/epoch-3/config.json"
