// Package childproc runs a test's scenarios in child processes, for
// behaviour that ends the process: a deadlock report, a crash, what the
// collector leaves after a program's last collection.
//
// The parent re-executes its own test binary with an environment variable
// naming a scenario (Set.Run); in the child, a test function that does
// nothing else calls Set.Serve, which runs the scenario and exits. A
// scenario that needs a process in which nothing has run yet, not even the
// testing package's tests, is served from TestMain instead (Set.ServeMain).
// The parent checks the child's exit status and output.
package childproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// A Set is the scenarios of one test binary.
type Set struct {
	// Env is the environment variable that names the scenario in a child.
	Env string
	// Test is the name of the test function that calls Serve, or "" for
	// a set served from TestMain (ServeMain): its children run no test.
	Test string
	// Scenarios maps a name to its body. A body either ends the process
	// itself (a deadlock, a panic, os.Exit) or returns, and the child then
	// exits 0, or 1 if it failed its *testing.T (see T).
	Scenarios map[string]func()
	// T is the child's *testing.T while a scenario runs; nil in a child
	// served by ServeMain.
	T *testing.T
}

// Child reports whether this process is a child of s.
func (s *Set) Child() bool { return os.Getenv(s.Env) != "" }

// Serve runs the scenario this child was started for and exits; in the
// parent it skips t.
func (s *Set) Serve(t *testing.T) {
	name := os.Getenv(s.Env)
	if name == "" {
		t.Skip("runs only in a child process (childproc)")
	}
	f, ok := s.Scenarios[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "childproc: unknown scenario %q\n", name)
		os.Exit(3)
	}
	s.T = t
	f()
	if t.Failed() {
		os.Exit(1)
	}
	os.Exit(0)
}

// ServeMain, called first thing in TestMain, runs the scenario this child
// was started for and exits 0 if it returns; in the parent it returns at
// once.
func (s *Set) ServeMain() {
	name := os.Getenv(s.Env)
	if name == "" {
		return
	}
	f, ok := s.Scenarios[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "childproc: unknown scenario %q\n", name)
		os.Exit(3)
	}
	f()
	os.Exit(0)
}

// A Result is how a child ended and what it wrote.
type Result struct {
	Code           int // exit status; -1 when killed at the time limit
	TimedOut       bool
	Stdout, Stderr string
}

// Run runs the scenario name in a child for at most limit, with the extra
// environment env, and reports how it ended. The child runs with
// GOTRACEBACK=single and no -test.timeout, whose alarm is a runtime timer
// that would hide a deadlock.
func (s *Set) Run(t testing.TB, name string, limit time.Duration, env ...string) Result {
	t.Helper()
	return s.RunBinary(t, os.Args[0], name, limit, env...)
}

// RunBinary is Run with the test binary at path exe: a copy of this one
// under another name, say.
func (s *Set) RunBinary(t testing.TB, exe, name string, limit time.Duration, env ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^"+s.Test+"$", "-test.timeout=0", "-test.count=1")
	cmd.Env = append(os.Environ(), s.Env+"="+name, "GOTRACEBACK=single")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.Code, r.TimedOut = -1, true
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("childproc: running scenario %s: %v", name, err)
	}
	return r
}
