#!/usr/bin/env bash
# modules.sh runs the own tests of public modules that lean on timers or on
# contexts, with their imports swapped for this repository's packages:
#
#   import "time"     ->  import time "github.com/stashgo/stash/stashtime"
#   import "context"  ->  import context "github.com/stashgo/stash/stashcontext"
#
# in every package of the module, tests included (grouped and aliased
# imports too), by cmd/stashswap, the command users run; .ci/modules.go reads
# go test -json.
#
#   bash .ci/modules.sh                 # every module in the table below
#   bash .ci/modules.sh cron yamux      # only these (names from the table)
#   MODULES_KEEP=1 bash .ci/modules.sh cron   # keep the copies, print where
#
# For each module, in sequence: fetch the pinned version through the module
# proxy (go mod download), copy it, point github.com/stashgo/stash at this
# checkout (require and replace), rewrite its imports (stashswap ./..., which
# fails this module if it swaps nothing, or if a second run or -check finds
# anything left) and go mod tidy, then
# go test -count=1 -p 2 ./... in the copy.
#
# A test that fails swapped is run again, swapped, up to twice. If it failed
# every time, it is run with the module's original imports (an untouched copy
# with the same go line, so the same language version) up to twice. It is a
# swap failure, which fails this script, if it failed swapped every time and
# passed with the original at least once. (When more than MODULES_RERUN_MAX,
# default 10, tests of a module fail swapped, that is no flake: they go
# straight to the original, sparing minutes of swapped reruns.) A test that passes on a swapped
# rerun is reported as flaky; one that fails with the original too is
# reported and does not fail the script (it is the module's own failure, or
# this machine's). A package that fails with no test to blame (it does not
# build swapped, or its TestMain fails) is handled the same way, as a whole.
# A test that hangs is cut by -timeout and counts as failed.
#
# Cost: about 3 minutes of a 2-core machine when nothing fails, most of it
# in gocron, cron and yamux, whose tests wait on real timers (40-70 s each);
# each failure adds its reruns, at most a few minutes per module.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
root=$PWD
export PATH="/usr/local/go/bin:$PATH"
# The copies live outside the repository (no go.work applies), resolve
# modules themselves, and are built by the toolchain that runs the script.
export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=local

stash=github.com/stashgo/stash
# go test -timeout, in seconds: a module's whole run (the slowest takes about
# 70 s), and a rerun of its failures. Each go test is stopped a minute later
# still (a build that hangs), and each fetch or tidy after 5 minutes.
full_timeout=180
rerun_timeout=120
# More failures than this in one module's first run are not rerun swapped,
# only with the original imports.
rerun_max=${MODULES_RERUN_MAX:-10}

declare -a names=()
declare -A module=() swaps=() flags=() skips=()

# mod NAME MODULE@VERSION SWAPS [GO TEST FLAG...]: a module to test. SWAPS
# is time, context or time,context.
mod() {
	local n=$1
	names+=("$n")
	module[$n]=$2
	swaps[$n]=$3
	shift 3
	flags[$n]="$*"
}

# skip NAME REGEXP REASON: leave out the module's tests that REGEXP matches
# (go test -skip), swapped and original alike. Every skip says why.
skip() {
	skips[$1]="${skips[$1]:+${skips[$1]}|}$2"
}

# Timers: schedulers, a rate limiter, retry libraries, a multiplexer with
# keep-alives, caches with expiry.
mod cron github.com/robfig/cron/v3@v3.0.1 time
mod gocron github.com/go-co-op/gocron/v2@v2.21.2 time # its tests end in goleak.VerifyNone
mod rate golang.org/x/time@v0.16.0 time
mod backoff github.com/cenkalti/backoff/v4@v4.3.0 time -vet=off # upstream's example_test.go fails go vet, swapped or not
mod yamux github.com/hashicorp/yamux@v0.1.2 time
mod gocache github.com/patrickmn/go-cache@v2.1.0+incompatible time
mod lru github.com/hashicorp/golang-lru/v2@v2.0.7 time # expirable: a ticker purges expired entries
mod bigcache github.com/allegro/bigcache/v3@v3.1.0 time -vet=off # upstream's tests fail go vet (non-constant format strings), swapped or not
mod gobreaker github.com/sony/gobreaker/v2@v2.4.0 time
mod ratelimit go.uber.org/ratelimit@v0.3.1 time
mod retrygo github.com/avast/retry-go/v4@v4.7.0 time
# Contexts: errgroup and semaphore, retry libraries, a connection pool.
mod xsync golang.org/x/sync@v0.25.0 context
mod puddle github.com/jackc/puddle/v2@v2.2.3 context
mod backoff5 github.com/cenkalti/backoff/v5@v5.0.3 context
mod goretry github.com/sethvargo/go-retry@v0.5.0 time,context

skip backoff5 '^ExampleRetry$' 'GETs http://httpbin.org/get: needs the network (it waits for it until go test times out)'
skip yamux '^TestHalfCloseSessionShutdown$' 'flaky on its own: the client closes its TCP connection with data unread, and the server then reads "connection reset by peer"; 14 of 40 runs failed with time'

# Which modules to run: the arguments, or all.
declare -a run=()
if [ $# -gt 0 ]; then
	for n in "$@"; do
		[ -n "${module[$n]:-}" ] || {
			echo "modules: no module named $n; the names are: ${names[*]}" >&2
			exit 2
		}
		run+=("$n")
	done
else
	run=("${names[@]}")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/stash-modules.XXXXXX") || exit 1
if [ -n "${MODULES_KEEP:-}" ]; then
	echo "modules: copies kept in $work"
else
	trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
fi

tool=$work/modtool
go build -o "$tool" .ci/modules.go || exit 1
swapper=$work/stashswap
go build -o "$swapper" ./cmd/stashswap || exit 1

# fetch NAME DEST: copy the module's pinned version, as the proxy serves it,
# to DEST, writable, with a go.mod (a +incompatible one has none).
fetch() {
	local n=$1 dest=$2 json dir
	json=$(timeout 300 go mod download -json "${module[$n]}" 2>&1)
	dir=$(awk -F'"' '$2 == "Dir" { print $4 }' <<<"$json")
	if [ -z "$dir" ] || [ ! -d "$dir" ]; then
		echo "modules: go mod download ${module[$n]} gave no directory:"
		echo "$json"
		return 1
	fi
	cp -R "$dir" "$dest" && chmod -R u+w "$dest" || return 1
	if [ ! -f "$dest/go.mod" ]; then
		(cd "$dest" && go mod init "${module[$n]%@*}" 2>/dev/null) || return 1
	fi
}

# prepare_swapped NAME: the module's copy with its imports swapped.
prepare_swapped() {
	local n=$1 dest=$work/$1/swapped out rc=0
	local -a args=()
	case ,${swaps[$n]}, in *,time,*) ;; *) args+=(-time=false) ;; esac
	case ,${swaps[$n]}, in *,context,*) args+=(-context) ;; esac
	fetch "$n" "$dest" || return 1
	(cd "$dest" && go mod edit -require="$stash@v0.0.0" -replace="$stash=$root") || return 1
	out=$(cd "$dest" && timeout 300 "$swapper" "${args[@]}" ./... 2>&1) || rc=$?
	grep -v '^swapped ' <<<"$out" # the summary and any file left, not each package
	[ "$rc" -eq 0 ] || return 1
	if ! grep -q '^stashswap: swapped ' <<<"$out"; then
		echo "modules: stashswap swapped no import in ${module[$n]}"
		return 1
	fi
	# A second run changes nothing, and -check finds no import left.
	out=$(cd "$dest" && "$swapper" "${args[@]}" ./... 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q '^stashswap: nothing to swap' <<<"$out"; then
		echo "modules: a second stashswap run in ${module[$n]} did not find nothing to swap:"
		echo "$out"
		return 1
	fi
	(cd "$dest" && "$swapper" "${args[@]}" -check ./...) || {
		echo "modules: stashswap -check failed in ${module[$n]} after the swap"
		return 1
	}
	(cd "$dest" && timeout 300 go mod tidy) || return 1
}

# prepare_original NAME: the module's copy as published, with the go line
# that tidy gave the swapped copy (the language version must not differ).
prepare_original() {
	local n=$1 dest=$work/$1/original v
	[ -d "$dest" ] && return 0
	fetch "$n" "$dest" || return 1
	v=$(cd "$work/$n/swapped" && go mod edit -json | awk -F'"' '$2 == "Go" { print $4; exit }')
	(cd "$dest" && go mod edit -go="$v" && timeout 300 go mod tidy) || return 1
}

# gotest NAME COPY RESULT TIMEOUT LINES [PKG TEST]...: go test, in the
# module's COPY (swapped or original), of the given (package, test) pairs (an
# empty TEST: the whole package; no pairs: ./...). The failures land in
# RESULT (see modules.go); LINES of each failure's output are printed. It
# returns 3 if a go test failed and RESULT names nothing to blame.
gotest() {
	local n=$1 copy=$2 res=$3 timeout=$4 lines=$5
	shift 5
	local -a cmd=(timeout -k 10 $((timeout + 60)) go test -count=1 -p 2 -timeout "${timeout}s" -json)
	# shellcheck disable=SC2206 # flags are words
	cmd+=(${flags[$n]})
	[ -n "${skips[$n]:-}" ] && cmd+=(-skip "${skips[$n]}")
	if [ $# -eq 0 ]; then
		(cd "$work/$n/$copy" && "${cmd[@]}" ./... 2>&1) | "$tool" report -lines "$lines" "$res"
		blame "$res" "${PIPESTATUS[0]}"
		return
	fi
	# One go test per package: -run names that package's tests alone.
	local pkgs pkg tests rc=0
	: >"$res.all"
	pkgs=$(printf '%s\n' "$@" | paste - - | cut -f1 | sort -u)
	for pkg in $pkgs; do
		# The whole package if one entry is, else its tests alone.
		tests=$(printf '%s\n' "$@" | paste - - | awk -F'\t' -v p="$pkg" '
			$1 == p && $2 == "" { whole = 1 }
			$1 == p && $2 != "" { t = t (t == "" ? "" : "|") $2 }
			END { if (!whole) print t }')
		local -a sel=()
		if [ -n "$tests" ]; then
			sel=(-run "^($tests)\$")
		fi
		(cd "$work/$n/$copy" && "${cmd[@]}" "${sel[@]}" "$pkg" 2>&1) | "$tool" report -lines "$lines" "$res.one"
		blame "$res.one" "${PIPESTATUS[0]}" || rc=$?
		tail -n +2 "$res.one" >>"$res.all"
	done
	{
		echo "counts - - -"
		cat "$res.all"
	} >"$res"
	return $rc
}

# blame RESULT STATUS: returns 3, and says so, if go test exited with STATUS
# other than 0 and RESULT names no failure.
blame() {
	[ "$2" -eq 0 ] && return 0
	[ "$(tail -n +2 "$1" 2>/dev/null | wc -l)" -gt 0 ] && return 0
	echo "modules: go test exited with status $2, and no test or package failed"
	return 3
}

# failures_of RESULT: the failed "PACKAGE<tab>TEST" lines of RESULT.
failures_of() {
	tail -n +2 "$1"
}

# still_failing ENTRY RESULT: whether ENTRY ("PACKAGE<tab>TEST") failed
# again in RESULT; for a whole package (no TEST), any failure in it counts.
still_failing() {
	local pkg=${1%%$'\t'*} test=${1#*$'\t'}
	if [ -z "$test" ]; then
		failures_of "$2" | cut -f1 | grep -qxF -- "$pkg"
	else
		failures_of "$2" | grep -qxF -- "$1"
	fi
}

# retry NAME COPY TRY: run the entries of "left" again in COPY; those that
# pass are moved to "passed_again", the others stay in "left".
retry() {
	local n=$1 copy=$2 try=$3 f out=$work/$1/res.$2.$3
	local -a args again=()
	mapfile -t args < <(printf '%s\n' "${left[@]}" | tr '\t' '\n')
	local rc=0
	gotest "$n" "$copy" "$out" "$rerun_timeout" 8 "${args[@]}" || rc=$?
	passed_again=()
	for f in "${left[@]}"; do
		if [ $rc -ne 0 ] || still_failing "$f" "$out"; then
			again+=("$f")
		else
			passed_again+=("$f")
		fi
	done
	left=("${again[@]}")
}

# names_of ENTRY...: the tests' names on one line.
names_of() {
	printf '%s\n' "$@" | awk -F'\t' '{ print ($2 == "" ? $1 " (the package)" : $2) }' | paste -sd' '
}

total_fail=0
declare -a summary=()
t_all=$SECONDS

for n in "${run[@]}"; do
	echo
	echo "==> $n: ${module[$n]}, import ${swaps[$n]//,/ and } swapped"
	t0=$SECONDS
	mkdir -p "$work/$n"
	if ! prepare_swapped "$n"; then
		echo "<== $n: FAILED to fetch, swap or tidy"
		summary+=("$(printf '%-10s FAILED to fetch, swap or tidy' "$n")")
		total_fail=$((total_fail + 1))
		continue
	fi
	res=$work/$n/res.swapped.0
	if ! gotest "$n" swapped "$res" "$full_timeout" 40 || ! read -r _ passed _ skipped <"$res"; then
		echo "<== $n: FAILED: no test result"
		summary+=("$(printf '%-10s FAILED: go test failed with no test to blame' "$n")")
		total_fail=$((total_fail + 1))
		continue
	fi
	mapfile -t left < <(failures_of "$res")
	flaky=() swapfail=()

	# The failures again, swapped, up to twice: what passes is flaky. Many
	# failures at once are no flake, and their reruns would cost minutes.
	tries="1 2"
	if [ ${#left[@]} -gt "$rerun_max" ]; then
		echo "--- $n: ${#left[@]} failed swapped, more than $rerun_max: not rerun swapped"
		tries=
	fi
	for try in $tries; do
		[ ${#left[@]} -gt 0 ] || break
		echo "--- $n: rerun $try, swapped: $(names_of "${left[@]}")"
		retry "$n" swapped "$try"
		flaky+=("${passed_again[@]}")
	done
	# What failed swapped three times, with the original imports, up to
	# twice: what passes is a swap failure.
	if [ ${#left[@]} -gt 0 ] && ! prepare_original "$n"; then
		echo "<== $n: FAILED to prepare the original copy"
		summary+=("$(printf '%-10s FAILED to prepare the original copy' "$n")")
		total_fail=$((total_fail + 1))
		continue
	fi
	for try in 1 2; do
		[ ${#left[@]} -gt 0 ] || break
		echo "--- $n: run $try with the original imports: $(names_of "${left[@]}")"
		retry "$n" original "$try"
		swapfail+=("${passed_again[@]}")
	done

	line=$(printf '%-10s %3d passed, %d failed swapped, %d flaky, %d failed with the original too, %d skipped, %3ds' \
		"$n" "$passed" "${#swapfail[@]}" "${#flaky[@]}" "${#left[@]}" "$skipped" $((SECONDS - t0)))
	[ ${#swapfail[@]} -eq 0 ] || line+=$'\n'"             failed swapped: $(names_of "${swapfail[@]}")"
	[ ${#flaky[@]} -eq 0 ] || line+=$'\n'"             flaky swapped (passed on a rerun): $(names_of "${flaky[@]}")"
	[ ${#left[@]} -eq 0 ] || line+=$'\n'"             failed with the original imports too: $(names_of "${left[@]}")"
	summary+=("$line")
	echo "<== $line"
	[ ${#swapfail[@]} -eq 0 ] || total_fail=$((total_fail + 1))
done

echo
echo "==> modules, imports swapped ($((SECONDS - t_all))s)"
printf '  %s\n' "${summary[@]}"
if [ "$total_fail" -gt 0 ]; then
	echo "modules: $total_fail of ${#run[@]} modules FAILED swapped"
	exit 1
fi
echo "modules: all ${#run[@]} modules passed swapped"
