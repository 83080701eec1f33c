//go:build ignore

// Command modules is the helper of modules.sh, which runs the tests of public
// modules with their imports of time and context swapped for stashtime and
// stashcontext. It does the two things that a shell does badly:
//
//	go run .ci/modules.go swap DIR PKG=NEWPATH...
//	go test -json ... 2>&1 | go run .ci/modules.go report [-lines N] [-most M] RESULT
//
// swap rewrites, in every .go file under DIR (testdata, vendor, nested
// modules and directories whose name starts with "." or "_" left out, as the
// go command leaves them out), each import of PKG to NEWPATH under PKG's
// name, so that the code that uses it is unchanged:
//
//	import "time"            ->  import time "github.com/stashgo/stash/stashtime"
//	import t "time"          ->  import t "github.com/stashgo/stash/stashtime"
//	import ( "fmt"; "time" ) ->  import ( "fmt"; time "github.com/stashgo/stash/stashtime" )
//
// Only the import's path (and the name it gets) is touched; the rest of each
// file is kept byte for byte. It prints how many imports it rewrote, in how
// many files, and fails if it rewrote none.
//
// report reads the events of go test -json (and any plain lines mixed in,
// such as the go command's own errors, which it prints as they are). It
// prints, for each top-level test that failed, a FAIL line and the last N
// lines of its output (default 30; 0 prints the FAIL lines alone; only for
// the first M failures, -most M, default 10), then a line of counts. It writes RESULT: a first line "counts PASSED FAILED
// SKIPPED", then one line "PACKAGE<tab>TEST" per failed top-level test. A
// test that started and never ended (the binary timed out or crashed) counts
// as failed, and so does one whose package never ended (go test was
// stopped). A package that failed with no test to blame (it did not build,
// or TestMain failed, for example in a leak check), or with a test that
// never ended (the tests after it never ran), is written with an empty
// TEST. Examples count as tests, as go test counts them.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "swap":
		err = swapCmd(os.Args[2:])
	case "report":
		err = reportCmd(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modules:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: modules swap DIR PKG=NEWPATH... | modules report [-lines N] [-most M] RESULT")
	os.Exit(2)
}

// swapCmd implements "swap DIR PKG=NEWPATH...".
func swapCmd(args []string) error {
	if len(args) < 2 {
		usage()
	}
	root := args[0]
	swaps := map[string]string{} // old import path -> new import path
	for _, a := range args[1:] {
		old, repl, ok := strings.Cut(a, "=")
		if !ok || old == "" || repl == "" {
			return fmt.Errorf("swap: %q is not PKG=NEWPATH", a)
		}
		swaps[old] = repl
	}
	files, imports := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path == root {
				return nil
			}
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module: not part of this one
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		n, err := swapFile(path, swaps)
		if n > 0 {
			files++
			imports += n
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("swap: %w", err)
	}
	if imports == 0 {
		return fmt.Errorf("swap: no import to rewrite under %s", root)
	}
	fmt.Printf("swapped %d imports in %d files\n", imports, files)
	return nil
}

// swapFile rewrites the imports named in swaps in one file, in place, and
// returns how many it rewrote.
func swapFile(path string, swaps map[string]string) (int, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
	if err != nil {
		return 0, err
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	for _, spec := range f.Imports {
		old, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", fset.Position(spec.Path.Pos()), err)
		}
		repl, ok := swaps[old]
		if !ok {
			continue
		}
		text := strconv.Quote(repl)
		if spec.Name == nil {
			// The package keeps the name it had: the last element of its path.
			text = old[strings.LastIndex(old, "/")+1:] + " " + text
		}
		edits = append(edits, edit{
			start: fset.Position(spec.Path.Pos()).Offset,
			end:   fset.Position(spec.Path.End()).Offset,
			text:  text,
		})
	}
	if len(edits) == 0 {
		return 0, nil
	}
	var b strings.Builder
	last := 0
	for _, e := range edits { // f.Imports is in source order
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(src[last:])
	info, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return len(edits), os.WriteFile(path, []byte(b.String()), info.Mode().Perm())
}

// event is one line of go test -json (cmd/test2json's TestEvent).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	Elapsed     float64
	ImportPath  string // build-output and build-fail
	FailedBuild string
}

// testKey names a top-level test of a package.
type testKey struct{ pkg, test string }

// reportCmd implements "report [-lines N] [-most M] RESULT".
func reportCmd(args []string) error {
	fl := flag.NewFlagSet("report", flag.ExitOnError)
	lines := fl.Int("lines", 30, "lines of output to print per failed test")
	most := fl.Int("most", 10, "print output for at most this many failed tests")
	fl.Parse(args)
	if fl.NArg() != 1 {
		usage()
	}
	var (
		passed, failed, skipped int
		outputs                 = map[testKey][]string{} // output of each top-level test, subtests' included
		running                 = map[testKey]bool{}     // started and not ended
		elapsed                 = map[testKey]float64{}
		failures                []testKey // in the order they failed
		pkgFailedTests          = map[string]bool{}
	)
	started := map[string]bool{} // packages whose test binary started and did not end
	// failPackage records a failed package: it blames the tests that never
	// ended, or the package itself if no test of it failed.
	failPackage := func(pkg, why string) {
		var stuck []testKey
		for rk := range running {
			if rk.pkg == pkg {
				stuck = append(stuck, rk)
			}
		}
		sort.Slice(stuck, func(i, j int) bool { return stuck[i].test < stuck[j].test })
		for _, rk := range stuck {
			delete(running, rk)
			failed++
			failures = append(failures, rk)
			pkgFailedTests[rk.pkg] = true
			outputs[rk] = append(outputs[rk], "(the test did not end: "+why+")\n")
		}
		// The package itself too if a test never ended: the tests after
		// it never ran, and a rerun of the whole package runs them.
		if !pkgFailedTests[pkg] || len(stuck) > 0 {
			failures = append(failures, testKey{pkg, ""})
		}
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var ev event
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &ev) != nil {
			fmt.Println(line) // the go command's own output
			continue
		}
		top, _, _ := strings.Cut(ev.Test, "/")
		k := testKey{ev.Package, top}
		switch {
		case ev.Action == "build-output":
			fmt.Print(ev.Output)
		case ev.Action == "output" && ev.Test != "":
			outputs[k] = append(outputs[k], ev.Output)
		case ev.Action == "output":
			outputs[testKey{ev.Package, ""}] = append(outputs[testKey{ev.Package, ""}], ev.Output)
		case ev.Test == "" && ev.Action == "start":
			started[ev.Package] = true
		case ev.Test == "" && (ev.Action == "pass" || ev.Action == "skip"):
			delete(started, ev.Package)
		case ev.Test == "" && ev.Action == "fail":
			delete(started, ev.Package)
			failPackage(ev.Package, "the test binary timed out or crashed")
		case ev.Test != top:
			// A subtest's start or end: counted with its test.
		case ev.Action == "run":
			running[k] = true
		case ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip":
			delete(running, k)
			elapsed[k] = ev.Elapsed
			switch ev.Action {
			case "pass":
				passed++
				delete(outputs, k)
			case "skip":
				skipped++
				delete(outputs, k)
			case "fail":
				failed++
				failures = append(failures, k)
				pkgFailedTests[k.pkg] = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("report: reading go test -json: %w", err)
	}
	// A package whose test binary never ended: go test was killed.
	var unended []string
	for pkg := range started {
		unended = append(unended, pkg)
	}
	sort.Strings(unended)
	for _, pkg := range unended {
		outputs[testKey{pkg, ""}] = append(outputs[testKey{pkg, ""}], "(go test was stopped before the package ended)\n")
		failPackage(pkg, "go test was stopped")
	}

	var res strings.Builder
	fmt.Fprintf(&res, "counts %d %d %d\n", passed, failed, skipped)
	for i, k := range failures {
		fmt.Fprintf(&res, "%s\t%s\n", k.pkg, k.test)
		if k.test == "" {
			fmt.Printf("FAIL %s (the package: it failed with no test to blame, or a test never ended)\n", k.pkg)
		} else {
			fmt.Printf("FAIL %s %s (%.2fs)\n", k.pkg, k.test, elapsed[k])
		}
		if i < *most {
			printTail(outputs[k], *lines)
		}
	}
	fmt.Printf("passed %d, failed %d, skipped %d\n", passed, failed, skipped)
	if err := os.WriteFile(fl.Arg(0), []byte(res.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// printTail prints the last n lines of out, indented.
func printTail(out []string, n int) {
	if n <= 0 {
		return
	}
	text := strings.Split(strings.TrimRight(strings.Join(out, ""), "\n"), "\n")
	if len(text) > n {
		fmt.Printf("    ... (%d lines before)\n", len(text)-n)
		text = text[len(text)-n:]
	}
	for _, l := range text {
		fmt.Println("    " + strings.TrimRight(l, " \t"))
	}
}
