#!/usr/bin/env bash
# time-stdlib.sh runs the Go toolchain's own timer tests against stashtime:
# sleep_test.go and tick_test.go (package time_test) from
# $(go env GOROOT)/src/time are copied into a temporary module, their
# import of "time" is rewritten to stashtime, and go test runs them, with
# example_test.go, whose examples (output checked) use the rest of the API
# through stashtime's re-exports.
#
#   bash .ci/time-stdlib.sh            # from anywhere in the repository
#   RACE=1 bash .ci/time-stdlib.sh     # with -race
#
# Shims, each with its reason; nothing else is changed:
#   - sleep_test.go imports internal/testenv for one call, SkipFlaky on
#     plan9/arm, which becomes the t.Skip it makes there.
#   - sleep_test.go reads runtime.haveHighResSleep through go:linkname,
#     which the linker refuses outside the standard library: it is true on
#     every system this script runs on (it is false only on some Windows).
#   - tick_test.go reads time's GODEBUG asynctimerchan (AsynctimerChan):
#     stashtime always has Go 1.23's channels, so it is "0".
#   - shim_test.go defines two hooks of time's internal_test.go: Interrupt,
#     which does nothing on unix, and CheckRuntimeTimerPeriodOverflow, which
#     makes a runtime timer that only time's internals can (due now, with a
#     period of 1<<63-1); the shim makes the nearest the API allows, a
#     ticker of that period, and checks that a short timer still fires.
#   - time's internal_test.go makes US Pacific the Local zone for its
#     tests, as only package time can; TZ=America/Los_Angeles does the same
#     from outside (shim_test.go imports time/tzdata, should the system
#     have no zoneinfo).
#
# One known difference is skipped, not shimmed: TestTimerGC's subtests
# After, Tick, NewTimer and NewTicker count the allocations left after
# three back-to-back collections by 10,000 abandoned channel timers.
# stashtime frees them, but over more collections than that (see "An
# abandoned, unstopped channel timer" in docs/differences.md, and
# TestAbandonedFreedByCollections, which checks stashtime's bound). The
# subtests that stop their timers (NewTimerStop, NewTickerStop) run.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/.ci/stdlib.sh"
src="$(go env GOROOT)/src/time"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

goversion=$(go env GOVERSION) # go1.26.8
goversion=${goversion#go}

for f in sleep_test.go tick_test.go example_test.go; do
	[ -f "$src/$f" ] || { echo "time-stdlib: no $src/$f" >&2; exit 1; }
	sed -e 's#^\t\. "time"$#\t. "github.com/stashgo/stash/stashtime"#' \
		-e 's#^\t"time"$#\ttime "github.com/stashgo/stash/stashtime"#' \
		"$src/$f" >"$tmp/$f"
	if grep -q '"time"' "$tmp/$f"; then
		echo "time-stdlib: $f still imports \"time\"" >&2
		exit 1
	fi
done

# shim REGEXP REPLACEMENT FILE: apply one sed substitution, which must
# change the file.
shim() {
	cp "$tmp/$3" "$tmp/$3.orig"
	sed -i "s#$1#$2#" "$tmp/$3"
	if cmp -s "$tmp/$3" "$tmp/$3.orig"; then
		echo "time-stdlib: $3 has no match for $1: update the shims" >&2
		exit 1
	fi
	rm "$tmp/$3.orig"
}
shim '^\t"internal/testenv"$' '' sleep_test.go
shim 'testenv\.SkipFlaky(t, 50470)' 't.Skip("flaky on plan9/arm: golang.org/issue/50470")' sleep_test.go
shim '^//go:linkname haveHighResSleep runtime.haveHighResSleep$' '// (time-stdlib.sh: true on the systems CI runs on)' sleep_test.go
shim '^var haveHighResSleep bool$' 'var haveHighResSleep = true' sleep_test.go
shim 'AsynctimerChan\.Value() == "1"' 'false' tick_test.go
if grep -qE 'testenv\.|^//go:linkname|AsynctimerChan' "$tmp"/*_test.go; then
	echo "time-stdlib: a test still reaches into time's or the runtime's internals: update the shims" >&2
	exit 1
fi

cat >"$tmp/shim_test.go" <<'GO'
package time_test

import (
	. "github.com/stashgo/stash/stashtime"
	_ "time/tzdata"
)

// Interrupt is time's hook that wakes a sleeping thread on plan9; on unix
// it does nothing.
func Interrupt() {}

// CheckRuntimeTimerPeriodOverflow stands for time's: a timer with a period
// of 1<<63-1 must not break the others.
func CheckRuntimeTimerPeriodOverflow() {
	tk := NewTicker(1<<63 - 1)
	defer tk.Stop()
	<-After(25 * Millisecond)
}
GO

stdlib_module "$tmp" stashtime.test/timestd "$repo"
echo "time-stdlib: sleep_test.go, tick_test.go and example_test.go from $src, Go $goversion"
export TZ=America/Los_Angeles
stdlib_test time-stdlib "$tmp" "(examples included; TestTimerGC's four abandoned-timer subtests skipped)" \
	-skip '^TestTimerGC$/^(After|Tick|NewTimer|NewTicker)$'
