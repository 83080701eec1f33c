#!/usr/bin/env bash
# net-stdlib.sh runs the Go toolchain's own connection-deadline tests, and
# x/net's conformance suite for net.Conn implementations, against stashnet:
#
#   - the tests of $(go env GOROOT)/src/net/timeout_test.go that set read
#     and write deadlines on TCP connections (12 of them: Read and Write
#     timeouts, deadlines that must not fire, fluctuation, various
#     deadlines, prolonged and racing deadlines, concurrent SetDeadline),
#     copied into a temporary module as package net_test, every connection
#     they dial or accept wrapped with stashnet;
#   - golang.org/x/net/nettest.TestConn on both ends of a wrapped loopback
#     TCP connection, with and without an idle timeout
#     (.ci/testdata/net-stdlib/nettest_test.go).
#
#   bash .ci/net-stdlib.sh            # from anywhere in the repository
#   RACE=1 bash .ci/net-stdlib.sh     # with -race
#
# Shims, each with its reason; nothing else in the tests is changed:
#   - timeout_test.go is package net, an internal test; it becomes package
#     net_test with net dot-imported, and its helpers from mockserver_test.go
#     and error_test.go, which read net's unexported state, are rebuilt from
#     the exported API in .ci/testdata/net-stdlib/shim_test.go:
#     newLocalListener and newLocalServer (loopback TCP, the listener wrapped
#     with stashnet.WrapListener), and parseReadError and its kin (the same
#     checks of an *OpError's fields and the errors it may wrap, less the
#     two unexported ones).
#   - Its Dial calls become stashDial, which wraps the connection with
#     stashnet.WrapConn.
#   - Its tests of Dial and Accept timeouts and of packet connections are
#     dropped, with init, which sets a hook of Dial's: stashnet puts no
#     deadline of theirs on the wheel.
#
# TestMain fails the run if no deadline reached stashnet (no expiry or no
# past deadline counted by stashnet.Stats), so that the tests cannot pass
# on package net alone.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/.ci/stdlib.sh"
src="$(go env GOROOT)/src/net"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

goversion=$(go env GOVERSION) # go1.26.8
goversion=${goversion#go}
# x/net's nettest, the version the module proxy served when this was
# written; it needs nothing the library does not.
xnet=golang.org/x/net@v0.62.0

f="$tmp/timeout_test.go"
[ -f "$src/timeout_test.go" ] || { echo "net-stdlib: no $src/timeout_test.go" >&2; exit 1; }
cp "$src/timeout_test.go" "$f"

# drop NAME: delete func NAME, from its line to its closing brace.
drop() {
	if ! grep -q "^func $1(" "$f"; then
		echo "net-stdlib: timeout_test.go has no func $1: update the shims" >&2
		exit 1
	fi
	sed -i "/^func $1(/,/^}/d" "$f"
}
for name in init TestDialTimeout TestDialTimeoutMaxDuration TestAcceptTimeout \
	TestAcceptTimeoutMustReturn TestAcceptTimeoutMustNotReturn TestReadFromTimeout \
	TestWriteToTimeout TestReadFromTimeoutFluctuation; do
	drop "$name"
done
sed -i -e 's/^package net$/package net_test/' \
	-e 's#^\t"time"$#\t"time"\n\n\t. "net"#' \
	-e '/^\t"context"$/d' \
	-E -e 's/([^.[:alnum:]_])Dial\(/\1stashDial(/g' "$f"
if ! grep -q '^package net_test$' "$f" || ! grep -q 'stashDial(' "$f"; then
	echo "net-stdlib: rewriting timeout_test.go failed: update the shims" >&2
	exit 1
fi
cp "$repo/.ci/testdata/net-stdlib/"*_test.go "$tmp/"

stdlib_module "$tmp" stashnet.test/netstd "$repo"
(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go get "$xnet" >/dev/null 2>&1)
tests=$(grep -h '^func Test' "$tmp"/*_test.go | grep -vc '^func TestMain(')
echo "net-stdlib: $tests tests: timeout_test.go's from $src (Go $goversion), and $xnet's nettest.TestConn"
stdlib_test net-stdlib "$tmp" ""
