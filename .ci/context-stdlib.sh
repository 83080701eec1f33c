#!/usr/bin/env bash
# context-stdlib.sh runs the Go toolchain's own tests of package context
# against stashcontext: the external test files of package context_test in
# $(go env GOROOT)/src/context are copied into a temporary module, their
# import of "context" is rewritten to stashcontext, and go test runs them
# (the examples too, whose output is checked).
#
#   bash .ci/context-stdlib.sh            # from anywhere in the repository
#   RACE=1 bash .ci/context-stdlib.sh     # with -race
#
# Shims, each with its reason; nothing else is changed:
#   - x_test.go's TestParentFinishesChild, TestChildFinishesFirst,
#     TestCancelRemoves and TestCustomContextGoroutines are dropped: each
#     only calls an XTest function of context_test.go, which is in package
#     context itself and reads its unexported types and counters.
#   - x_test.go imports internal/asan, which only the standard library may
#     import: asan.Enabled becomes false (this script never builds with
#     -asan) and the import is removed.
#   - context_test.go (package context, internal) is not copied, for the
#     reason above.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/.ci/stdlib.sh"
src="$(go env GOROOT)/src/context"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

goversion=$(go env GOVERSION) # go1.26.8
goversion=${goversion#go}

n=0
for f in "$src"/*_test.go; do
	grep -q '^package context_test$' "$f" || continue
	base=$(basename "$f")
	# The import is either `. "context"` or `"context"`; stashcontext's
	# package name is stashcontext, so the plain import gets the name
	# context.
	sed -e 's#^\t\. "context"$#\t. "github.com/stashgo/stash/stashcontext"#' \
		-e 's#^\t"context"$#\tcontext "github.com/stashgo/stash/stashcontext"#' \
		"$f" >"$tmp/$base"
	if grep -q '"context"' "$tmp/$base"; then
		echo "context-stdlib: $base still imports \"context\"" >&2
		exit 1
	fi
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "context-stdlib: no external tests in $src" >&2; exit 1; }

# Drop the four wrappers of XTest functions (see above): each is a func of
# three lines, from "func TestX(" to its closing brace.
for name in TestParentFinishesChild TestChildFinishesFirst TestCancelRemoves TestCustomContextGoroutines; do
	if ! grep -q "^func $name(" "$tmp/x_test.go"; then
		echo "context-stdlib: x_test.go has no $name: update the shims" >&2
		exit 1
	fi
	sed -i "/^func $name(/,/^}/d" "$tmp/x_test.go"
done
sed -i -e '/^\t"internal\/asan"$/d' -e 's/\basan\.Enabled\b/false/g' "$tmp/x_test.go"
if grep -qE 'XTest[A-Za-z]*\(|asan\.' "$tmp/x_test.go"; then
	echo "context-stdlib: x_test.go still refers to XTest or asan: update the shims" >&2
	exit 1
fi

stdlib_module "$tmp" stashcontext.test/contextstd "$repo"
echo "context-stdlib: $n test files from $src, Go $goversion"
stdlib_test context-stdlib "$tmp" ""
