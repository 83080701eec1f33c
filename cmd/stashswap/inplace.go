package main

import (
	"errors"
	"fmt"

	"os"
	"strings"

	"github.com/stashgo/stash/internal/swap"
)

// runInPlace rewrites, or with -diff shows, or with -check checks, the
// imports of the packages that patterns name, all in the user's module.
func (c *command) runInPlace(patterns []string) error {
	pkgs, err := c.goList(patterns)
	if err != nil {
		return err
	}
	var refused []string
	for _, p := range pkgs {
		switch {
		case p.Standard:
			refused = append(refused, p.ImportPath+" is in the standard library, which stashswap does not rewrite")
		case p.Error != nil && len(files(p, true)) == 0:
			refused = append(refused, p.Error.Err)
		case p.Module == nil || !p.Module.Main:
			refused = append(refused, fmt.Sprintf("%s is not in your module: swap a dependency with -overlay", p.ImportPath))
		}
	}
	if len(refused) > 0 {
		return errors.New(strings.Join(refused, "\n\t"))
	}

	// With -diff, stdout is the diff alone and the rest goes to stderr.
	report := c.stdout
	if c.diff {
		report = c.stderr
	}
	var (
		unreadable, stillDirect int
		total, totalFiles       int
		swappedPkgs             int
	)
	for _, p := range pkgs {
		imports, nfiles := 0, 0
		for _, f := range files(p, true) {
			src, err := os.ReadFile(f.path)
			if err != nil {
				fmt.Fprintln(c.stderr, "stashswap:", err)
				unreadable++
				continue
			}
			res, err := swap.File(c.rel(f.path), src, c.swaps)
			if err != nil {
				fmt.Fprintln(c.stderr, "stashswap:", err)
				unreadable++
				continue
			}
			left, advice := leftReason(res)
			if c.check {
				stillDirect += c.listDirect(f, res, left)
				continue
			}
			if res.Swapped == 0 {
				continue
			}
			if left != "" {
				fmt.Fprintf(c.stderr, "stashswap: %s: %s, left as it is: %s\n", c.rel(f.path), left, advice)
				continue
			}
			if f.ignored {
				fmt.Fprintf(c.stderr, "stashswap: %s: excluded from this build by its build constraints: swapped, but not compiled here\n", c.rel(f.path))
			}
			if c.diff {
				if err := unifiedDiff(c.stdout, c.rel(f.path), src, res.Src); err != nil {
					return err
				}
			} else if err := writeFile(f.path, res.Src); err != nil {
				return err
			}
			imports += res.Swapped
			nfiles++
		}
		if imports > 0 {
			fmt.Fprintf(report, "%s %s: %s in %s\n", c.verb(), p.ImportPath, plural(imports, "import"), plural(nfiles, "file"))
			total += imports
			totalFiles += nfiles
			swappedPkgs++
		}
	}
	if unreadable > 0 {
		return fmt.Errorf("%s could not be read or parsed", plural(unreadable, "file"))
	}
	if c.check {
		if stillDirect > 0 {
			fmt.Fprintf(c.stderr, "stashswap: %s still import %s directly (swap them with stashswap, or mark an import that must stay with a //%s comment)\n",
				plural(stillDirect, "file"), c.pathsSwapped(), swap.KeepMark)
			return errCheck
		}
		return nil
	}
	if total == 0 {
		fmt.Fprintf(report, "stashswap: nothing to swap: no import of %s left\n", c.pathsSwapped())
	} else {
		fmt.Fprintf(report, "stashswap: %s %s in %s of %s\n", c.verb(), plural(total, "import"), plural(totalFiles, "file"), plural(swappedPkgs, "package"))
	}
	// Load the swapped packages with their tests, which import stash now.
	load := []string{"-test"}
	if c.tags != "" {
		load = append(load, "-tags="+c.tags)
	}
	return c.ensureRequire(report, c.diff, append(load, patterns...))
}

// verb is what the summary lines say was done.
func (c *command) verb() string {
	if c.diff {
		return "would swap"
	}
	return "swapped"
}

// pathsSwapped names the import paths being swapped: "time" or "time or
// context".
func (c *command) pathsSwapped() string {
	var ps []string
	for _, p := range []string{swap.Time, swap.Context} {
		if _, ok := c.swaps[p]; ok {
			ps = append(ps, p)
		}
	}
	return strings.Join(ps, " or ")
}

// leftReason says why a file that imports a swapped path is left as it is
// when rewriting in place ("generated file", "cgo file") and what to do
// instead, or returns "", "".
func leftReason(res *swap.Result) (why, advice string) {
	switch {
	case res.Generated:
		return "generated file", `it says "Code generated ... DO NOT EDIT.", and its generator would undo the swap: swap the imports the generator writes`
	case res.Cgo:
		return "cgo file", "swap its imports by hand"
	}
	return "", ""
}

// listDirect prints, for -check, each import of f that is neither swapped
// nor kept, and returns 1 if there is one, else 0.
func (c *command) listDirect(f sourceFile, res *swap.Result, left string) int {
	n := 0
	for _, imp := range res.Direct {
		if imp.Kept {
			continue
		}
		line := fmt.Sprintf("%s:%d: imports %q", c.rel(f.path), imp.Line, imp.Path)
		var notes []string
		if left != "" {
			notes = append(notes, left)
		}
		if f.ignored {
			notes = append(notes, "excluded from this build by its build constraints")
		}
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, ", ") + ")"
		}
		fmt.Fprintln(c.stdout, line)
		n = 1
	}
	return n
}

// writeFile replaces the contents of the file at path, keeping its mode.
func writeFile(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, info.Mode().Perm())
}
