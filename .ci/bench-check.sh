#!/usr/bin/env bash
# make bench-check: pbem check against pgn-extract on the same number of
# plies. Builds pbem, makes a selfplay corpus of each game (about as many
# plies as the chess workload; kept in $BENCH_DIR between runs), installs
# pgn-extract when missing (Debian package pgn-extract; run as root or with
# sudo), unzips the chess workload, times `pgn-extract -r -s` and
# `pbem check` on each corpus in turn RUNS times, and prints plies/s of
# each and the ratio per game (min/median/max over the runs, each run
# timing both programs back to back).
#
# The guard: .ci/bench-check.baseline holds each game's ratio of best rates
# (each program's best plies/s over the runs) from a reference run. Each
# run compares its own with it and fails (exit 1)
# when a game's ratio fell more than 10% below its baseline (BENCH_SLACK,
# the fraction allowed), naming the game. The ratio is taken against
# pgn-extract timed in the same run, so that a slower or busier machine
# moves both; pbem uses both cores, so measure on a quiet machine all the
# same. --write-baseline writes this run's ratios as the new baseline
# (after a change that is meant to move them); --no-baseline skips the
# comparison.
set -euo pipefail
cd "$(dirname "$0")/.."

BASELINE=.ci/bench-check.baseline
mode=compare
for arg in "$@"; do
	case $arg in
	--write-baseline) mode=write ;;
	--no-baseline) mode=none ;;
	*) echo "bench-check.sh: unknown argument $arg; expected --write-baseline or --no-baseline" >&2; exit 2 ;;
	esac
done
BENCH_SLACK=${BENCH_SLACK:-0.10}

RUNS=${RUNS:-5}
BENCH_DIR=${BENCH_DIR:-/tmp/pbem-bench-check}
CHESS=${CHESS:-../shared/bench/chess5k.pgn.gz}
mkdir -p "$BENCH_DIR"

PGN_EXTRACT=$(command -v pgn-extract || true)
[ -z "$PGN_EXTRACT" ] && [ -x /usr/games/pgn-extract ] && PGN_EXTRACT=/usr/games/pgn-extract
if [ -z "$PGN_EXTRACT" ]; then
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO="sudo"
	export DEBIAN_FRONTEND=noninteractive
	for i in 1 2 3; do
		if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq pgn-extract; then
			break
		fi
		[ "$i" = 3 ] && { echo "bench-check.sh: apt-get install pgn-extract failed" >&2; exit 1; }
		sleep $((i * 5))
	done
	PGN_EXTRACT=$(command -v pgn-extract || echo /usr/games/pgn-extract)
fi

go build -o "$BENCH_DIR/pbem" ./cmd/pbem
PBEM="$BENCH_DIR/pbem"

CHESS_PGN="$BENCH_DIR/chess.pgn"
[ -s "$CHESS_PGN" ] || zcat "$CHESS" >"$CHESS_PGN"
# Plies of the chess workload: the words of its movetext that are neither
# move numbers nor results.
CHESS_PLIES=$(awk '!/^\[/ { for (i = 1; i <= NF; i++) { t = $i
	if (t ~ /^[0-9]+\.+$/ || t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*") continue
	sub(/^[0-9]+\.+/, "", t); if (t != "") n++ } } END { print n }' "$CHESS_PGN")

# Games per corpus: about CHESS_PLIES plies of selfplay (plies per game
# measured on these seeds).
corpus() { # game -> file
	local game=$1 n args=()
	case $game in
	castles) n=40800 ;;
	ziggurat) n=8150 ;;
	elevation) n=2585 ;;
	ziggurat43) n=3820 ;;
	rpp) n=2590 args=(--players 4) ;;
	esac
	local f="$BENCH_DIR/$game.pgn"
	if [ ! -s "$f" ]; then
		echo "bench-check.sh: generating $n $game games in $f" >&2
		"$PBEM" selfplay "$game" -n "$n" --seed 1 "${args[@]}" >"$f.tmp"
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

# seconds (wall) of a command, its output discarded
secs() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}

stats() { # numbers on stdin -> min median max
	sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f %.2f %.2f", a[1], m, a[NR]}'
}

echo "pgn-extract -r -s on $CHESS ($CHESS_PLIES plies) vs pbem check on $(nproc) cores, $RUNS runs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-11s %8s %26s %26s %20s %6s\n" game plies "pbem Mplies/s min/med/max" "pgn Mplies/s min/med/max" "ratio min/med/max" best
bests=""
for game in castles ziggurat elevation ziggurat43 rpp; do
	f=$(corpus "$game")
	plies=$("$PBEM" check "$f" | awk '/^checked/ {print $4}')
	ours="" theirs="" ratios=""
	for _ in $(seq "$RUNS"); do
		a=$(secs "$PGN_EXTRACT" -r -s "$CHESS_PGN")
		b=$(secs "$PBEM" check "$f")
		po=$(echo "$plies / $b / 1000000" | bc -l)
		pt=$(echo "$CHESS_PLIES / $a / 1000000" | bc -l)
		ours+="$po"$'\n' theirs+="$pt"$'\n' ratios+=$(echo "$po / $pt" | bc -l)$'\n'
	done
	# best: the best rate of each program over the runs, in ratio. Other
	# work on the machine only ever slows a run, so the best of several is
	# the steadiest figure of each (pgn-extract's median moves by a
	# quarter from one run to the next on a shared machine); the guard
	# compares it.
	best=$(echo "$(printf %s "$ours" | stats | cut -d' ' -f3) / $(printf %s "$theirs" | stats | cut -d' ' -f3)" | bc -l)
	printf "%-11s %8d %26s %26s %20s %6.2f\n" "$game" "$plies" \
		"$(printf %s "$ours" | stats)" "$(printf %s "$theirs" | stats)" "$(printf %s "$ratios" | stats)" "$best"
	bests+="$game $(printf %.2f "$best")"$'\n'
done

case $mode in
write)
	{
		echo "# pbem check's best plies/s over pgn-extract's best, of $RUNS runs per game"
		echo "# (.ci/bench-check.sh --write-baseline, $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg))"
		printf %s "$bests"
	} >"$BASELINE"
	echo "wrote $BASELINE"
	;;
compare)
	if [ ! -s "$BASELINE" ]; then
		echo "bench-check.sh: no $BASELINE to compare with; write one with --write-baseline" >&2
		exit 1
	fi
	# Each game of the baseline must be measured and keep at least
	# (1 - BENCH_SLACK) of its ratio.
	printf %s "$bests" | awk -v slack="$BENCH_SLACK" -v file="$BASELINE" '
		FILENAME == file { if ($1 !~ /^#/ && NF == 2) base[$1] = $2; next }
		{ now[$1] = $2 }
		END {
			bad = 0
			for (g in base) {
				if (!(g in now)) { printf "%-11s not measured; the baseline has it at %.2f\n", g, base[g]; bad = 1; continue }
				floor = base[g] * (1 - slack)
				verdict = "ok"
				if (now[g] < floor) { verdict = "SLOWER"; bad = 1 }
				printf "%-11s ratio %.2f against baseline %.2f (at least %.2f): %s\n", g, now[g], base[g], floor, verdict
			}
			if (bad) print "bench-check.sh: pbem check slowed by more than " slack * 100 "% against " file > "/dev/stderr"
			exit bad
		}' "$BASELINE" -
	;;
esac
