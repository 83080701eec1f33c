//go:build ignore

// Command modules is the helper of modules.sh, which runs the tests of public
// modules with their imports of time and context swapped for stashtime and
// stashcontext (by cmd/stashswap). It reads what go test -json writes, which
// a shell does badly:
//
//	go test -json ... 2>&1 | go run .ci/modules.go report [-lines N] [-most M] RESULT
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
	"os"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
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
	fmt.Fprintln(os.Stderr, "usage: modules report [-lines N] [-most M] RESULT")
	os.Exit(2)
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
