#!/usr/bin/env bash
# stashswap.sh checks cmd/stashswap's -overlay on a real dependency: the
# HTTP/2 server of golang.org/x/net, whose timers stay on the runtime's
# unless its imports are swapped.
#
# The module .ci/testdata/stashswap-h2c (x/net pinned by its go.mod and
# go.sum; it needs the module proxy, or x/net in the module cache) serves
# HTTP/2 cleartext through golang.org/x/net/http2/h2c over 127.0.0.1 and
# waits for the server's IdleTimeout to close the connection. In a copy of
# it, with stash pointed at this checkout:
#
#   1. go run github.com/stashgo/stash/cmd/stashswap -overlay stash.json \
#        golang.org/x/net/http2 golang.org/x/net/http2/h2c
#      (x/net is in the module cache, so stashswap copies it, swaps the
#      copy, and overlays go.mod with a replace directive for it);
#   2. go test -overlay stash.json: the idle timeout closes the connection
#      and stashtime.Default().Stats().Fired moves (-want=wheel);
#   3. go test without the overlay: the same close, on the runtime's
#      timers, and Fired does not move (-want=runtime).
#
#   bash .ci/stashswap.sh        # from anywhere in the repository
#
# Cost: about 20 s of a 2-core machine with x/net in the module cache and
# a cold build cache (two builds of net/http's and x/net's HTTP/2).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
export PATH="/usr/local/go/bin:$PATH"
# The copy lives outside the repository (no go.work applies) and is built
# by the toolchain that runs the script.
export GOWORK=off GOTOOLCHAIN=local
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

mod=$tmp/h2c
cp -R "$repo/.ci/testdata/stashswap-h2c" "$mod"
cd "$mod"
go mod edit -replace="github.com/stashgo/stash=$repo"

echo "stashswap: swapping golang.org/x/net/http2 and its h2c package through an overlay"
go run github.com/stashgo/stash/cmd/stashswap -overlay stash.json -cache "$tmp/cache" \
	golang.org/x/net/http2 golang.org/x/net/http2/h2c
echo "stashswap: stash.json:"
sed 's/^/    /' stash.json

# run_test NAME GO-TEST-ARG...: go test -v of the module, printed, and
# failed unless it passed.
run_test() {
	local name=$1 out
	shift
	echo
	echo "stashswap: $name: go test -count=1 -v $*"
	out=$(go test -count=1 -v "$@" 2>&1) || {
		echo "$out"
		echo "stashswap: $name: FAILED"
		return 1
	}
	echo "$out" | sed 's/^/    /'
}
run_test "with the overlay, on the wheel" -overlay stash.json . -args -want=wheel
run_test "without the overlay, on the runtime's timers" . -args -want=runtime
echo
echo "stashswap: the x/net h2c server's idle timeout ran on the wheel with the overlay, on the runtime's timers without"
