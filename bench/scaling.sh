#!/usr/bin/env bash
# Producer scaling: 1 to 16 goroutines starting and stopping timers, stash
# against time (stashtime BenchmarkAfterFuncStopParallel), and 1 to 16
# producers adding to the store against a mutex-guarded heap (internal/stash
# BenchmarkAddParallel). Run it on a machine with at least 16 cores:
#
#   bash bench/scaling.sh
#
# Where Go is not installed, build the test binaries first and point BIN at
# them (bench/out is ignored by git, so it can be carried along):
#
#   go test -c -o bench/out/bin/stashtime.test ./stashtime
#   go test -c -o bench/out/bin/stash.test ./internal/stash
#   BIN=bench/out/bin bash bench/scaling.sh
#
# CPUS (default 1,2,4,8,16) and COUNT (default 5) set the -cpu list and the
# repetitions. The raw output goes to $OUT/scaling (default
# bench/out/scaling); compare it with benchstat -col /impl.
set -euo pipefail
abs() { mkdir -p "$1" && (cd "$1" && pwd); } # BIN and OUT are relative to where the script is run
bin=${BIN:+$(abs "$BIN")}
out=$(abs "${OUT:-$(dirname "$0")/out}/scaling")
cd "$(dirname "$0")/.."
root=$PWD
if [ -z "$bin" ]; then
	bin=$(mktemp -d)
	trap 'rm -rf "$bin"' EXIT
	go test -c -o "$bin/stashtime.test" ./stashtime
	go test -c -o "$bin/stash.test" ./internal/stash
fi
cpus=${CPUS:-1,2,4,8,16}
count=${COUNT:-5}
echo "cores: $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo unknown)"
(cd "$root/stashtime" && "$bin/stashtime.test" -test.run '^$' -test.bench 'AfterFuncStopParallel' \
	-test.cpu "$cpus" -test.count "$count" -test.benchtime 200ms) | tee "$out/stashtime.txt"
(cd "$root/internal/stash" && "$bin/stash.test" -test.run '^$' -test.bench 'AddParallel' \
	-test.cpu "$cpus" -test.count "$count" -test.benchtime 300000x) | tee "$out/stash.txt"
