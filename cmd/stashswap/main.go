package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stashgo/stash/internal/swap"
)

func main() {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "stashswap:", err)
		os.Exit(1)
	}
	os.Exit(run(dir, os.Args[1:], os.Stdout, os.Stderr))
}

// errCheck is returned by -check when a file still imports a swapped path.
var errCheck = errors.New("files still import time or context directly")

// errUsage is returned for a command line that makes no sense.
var errUsage = errors.New("usage")

// A command is one run of stashswap: its flags, the directory it runs in
// (the user's module) and where it writes.
type command struct {
	dir            string
	stdout, stderr io.Writer
	swaps          map[string]string // import path -> replacement
	diff, check    bool
	overlay        string // -overlay: the overlay file to write
	cache          string // -cache: where -overlay writes the swapped copies
	tags           string // -tags, for go list
}

// run runs stashswap with the arguments args in dir and returns its exit
// status: 0, 1 for a failure (or a failed -check), 2 for bad usage.
func run(dir string, args []string, stdout, stderr io.Writer) int {
	c := &command{dir: dir, stdout: stdout, stderr: stderr}
	fl := flag.NewFlagSet("stashswap", flag.ContinueOnError)
	fl.SetOutput(stderr)
	swapTime := fl.Bool("time", true, "swap imports of time for "+swap.Replacements[swap.Time])
	swapContext := fl.Bool("context", false, "swap imports of context for "+swap.Replacements[swap.Context])
	fl.BoolVar(&c.diff, "diff", false, "print the changes as a unified diff; change nothing")
	fl.BoolVar(&c.check, "check", false, "change nothing; list the files that still import time (or context, with -context) and exit 1 if any")
	fl.StringVar(&c.overlay, "overlay", "", "write swapped copies of the named packages' files to the cache and this overlay file, for go build -overlay")
	fl.StringVar(&c.cache, "cache", "", "the directory -overlay writes copies to (default: the user cache directory's stashswap)")
	fl.StringVar(&c.tags, "tags", "", "build tags, as for go list")
	fl.Usage = func() {
		fmt.Fprint(stderr, usage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	c.swaps = map[string]string{}
	if *swapTime {
		c.swaps[swap.Time] = swap.Replacements[swap.Time]
	}
	if *swapContext {
		c.swaps[swap.Context] = swap.Replacements[swap.Context]
	}
	patterns := fl.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	var err error
	switch {
	case len(c.swaps) == 0:
		err = fmt.Errorf("%w: nothing to swap (-time=false and no -context)", errUsage)
	case c.overlay != "" && (c.diff || c.check):
		err = fmt.Errorf("%w: -overlay writes copies; it goes with neither -diff nor -check", errUsage)
	case c.diff && c.check:
		err = fmt.Errorf("%w: -diff and -check are two ways of changing nothing: choose one", errUsage)
	case c.overlay != "":
		err = c.runOverlay(patterns)
	default:
		err = c.runInPlace(patterns)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "stashswap:", err)
		fl.Usage()
		return 2
	case errors.Is(err, errCheck):
		return 1
	}
	fmt.Fprintln(stderr, "stashswap:", err)
	return 1
}

const usage = `usage: stashswap [-context] [-time=false] [-diff | -check] [-tags list] [packages]
       stashswap -overlay file.json [-cache dir] [-context] [-time=false] [-tags list] packages

stashswap rewrites the imports of time (and, with -context, of context) in
the named packages of your module, tests included, for stash's packages,
under the same names; with -overlay it writes swapped copies of the named
packages (dependencies) for go build -overlay. See go doc for the details.

`

// sourceFile is one .go file of a listed package.
type sourceFile struct {
	pkg     *listedPackage
	path    string // absolute
	ignored bool   // excluded by build constraints from this build
}

// files returns the .go files of pkg that the go command would compile,
// tests included, and, if withIgnored, those that build constraints
// exclude here; files whose names start with "_" or "." are never built.
func files(pkg *listedPackage, withIgnored bool) []sourceFile {
	var fs []sourceFile
	add := func(names []string, ignored bool) {
		for _, n := range names {
			if strings.HasPrefix(n, "_") || strings.HasPrefix(n, ".") {
				continue
			}
			fs = append(fs, sourceFile{pkg, filepath.Join(pkg.Dir, n), ignored})
		}
	}
	add(pkg.GoFiles, false)
	add(pkg.CgoFiles, false)
	add(pkg.TestGoFiles, false)
	add(pkg.XTestGoFiles, false)
	if withIgnored {
		add(pkg.IgnoredGoFiles, true)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].path < fs[j].path })
	return fs
}

// rel returns path relative to c.dir if it lies under it, else path.
func (c *command) rel(path string) string {
	r, err := filepath.Rel(c.dir, path)
	if err != nil || strings.HasPrefix(r, "..") {
		return path
	}
	return r
}

// plural returns "1 import" or "2 imports".
func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
