// Command stashswap swaps a module's timers onto stash's wheel: it rewrites
// the imports of package time (and, with -context, of package context) in
// the named packages of the module in the current directory, test files and
// files for other systems included, for stash's packages under the same
// names, so nothing else in the code changes:
//
//	import "time"     ->  import time "github.com/stashgo/stash/stashtime"
//	import "context"  ->  import context "github.com/stashgo/stash/stashcontext"
//
// Run it from the module:
//
//	go run github.com/stashgo/stash/cmd/stashswap ./...
//	go run github.com/stashgo/stash/cmd/stashswap -context ./...
//
// It resolves the package patterns with go list, leaves the rest of each
// file byte for byte as it was, and adds the requirement of
// github.com/stashgo/stash to go.mod (go get) if it is missing. A second run
// changes nothing. It prints each package it swapped and how many imports.
//
// Some files are left as they are, and each is named on standard error: a
// generated file (one that says "// Code generated ... DO NOT EDIT."), whose
// generator would undo the swap, and a cgo file (one that imports "C"). A
// file that build constraints exclude from this build (one for another
// system) is swapped, and named as not compiled here. An import whose line
// carries a //stashswap:keep comment stays (a file that sets time.Local,
// say).
//
// The flags:
//
//	-context     swap the imports of context too
//	-time=false  leave the imports of time (with -context: context alone)
//	-diff        print what would change, as a unified diff; change nothing
//	-check       change nothing; list every file that still imports time
//	             (or context, with -context) directly, and exit 1 if any
//	             does: for CI, to keep the imports out after the swap
//	-tags list   build tags, as for go list
//
// # Dependencies, through an overlay
//
// The timers of a dependency (the idle timeouts of golang.org/x/net/http2's
// server, say) stay on the runtime's timers, for its files import time. With
// -overlay, stashswap swaps the packages named, in copies under a cache
// directory (-cache; by default stashswap in the user's cache directory),
// and writes an overlay file for the go command's -overlay flag:
//
//	go run github.com/stashgo/stash/cmd/stashswap -overlay stash.json golang.org/x/net/http2
//	go build -overlay stash.json ./...
//
// go test and go run take -overlay too. The go command lets no overlay
// replace a file in the module cache, where dependencies usually are, so a
// module there is copied whole, the named packages are swapped in the copy,
// and the overlay replaces the main module's go.mod with one that adds a
// replace directive for the copy: run stashswap again after changing go.mod
// or the dependency's version, and outside workspace mode (GOWORK=off). A
// package elsewhere (a module replaced by a directory, a vendor directory)
// gets an overlay entry for each swapped file. Copies are named by their
// contents, so one is never stale.
//
// The swapped copies import stashtime, which resolves because the main
// module requires github.com/stashgo/stash (stashswap adds the requirement;
// go mod tidy keeps it only while a package of the module imports stash, so
// keep one such import, if only a blank one). A package of the standard
// library is refused: it cannot import a module. Cgo files are not swapped.
package main
