# stdlib.sh holds what the scripts that run the toolchain's own tests
# against stash share (context-stdlib.sh, time-stdlib.sh, net-stdlib.sh),
# which source it: a temporary module for the copied tests, and the run.

# stdlib_module DIR MODULE REPO: make DIR a module named MODULE that
# requires stash from the checkout REPO, with stash's own go.sum, which
# covers stash's dependencies: nothing is fetched but what the
# repository's CI has already downloaded.
stdlib_module() {
	local dir=$1 module=$2 repo=$3 goversion
	goversion=$(go env GOVERSION) # go1.26.8
	cat >"$dir/go.mod" <<MOD
module $module

go ${goversion#go}

require github.com/stashgo/stash v0.0.0

replace github.com/stashgo/stash => $repo
MOD
	cp "$repo/go.sum" "$dir/go.sum"
}

# stdlib_test NAME DIR NOTE [GO TEST ARG...]: run the tests of the module
# in DIR verbosely, with -race if RACE is set, show the failures, print
# "NAME: N tests passed (M with subtests), F failed NOTE", and fail unless
# go test passed.
stdlib_test() {
	local name=$1 dir=$2 note=$3 out
	shift 3
	local -a race=()
	[ -n "${RACE:-}" ] && race=(-race)
	out="$dir/stdlib-test.out"
	(cd "$dir" && GOWORK=off GOFLAGS=-mod=mod go test "${race[@]}" -count=1 -v "$@" .) 2>&1 |
		tee "$out" | grep -E "^(--- FAIL|FAIL|ok|PASS|panic)|^$name" || true
	local top all fail
	top=$(grep -c '^--- PASS' "$out" || true)
	all=$(grep -c -- '--- PASS' "$out" || true)
	fail=$(grep -c -- '--- FAIL' "$out" || true)
	echo "$name: $top tests passed ($all with subtests), $fail failed${note:+ $note}"
	if ! grep -q '^ok' "$out"; then
		grep -E -B2 -A20 -- '^\s*--- FAIL|^panic|cannot|undefined' "$out" | head -80
		return 1
	fi
}
