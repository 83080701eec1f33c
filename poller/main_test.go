package poller

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// childEnv names the scenario a re-executed test binary runs instead of the
// tests (see runChild).
const childEnv = "POLLER_TEST_CHILD"

// children are the scenarios a subprocess can run, by name. Each one exits
// the process itself or returns (exit status 0).
var children = map[string]func(){}

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		f, ok := children[name]
		if !ok {
			println("unknown child scenario", name)
			os.Exit(2)
		}
		f()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// runChild re-executes the test binary running scenario name and returns its
// combined output and exit error. A child still running after a minute is
// killed.
func runChild(t *testing.T, name string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+name)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
