package poller

import (
	"testing"
	"time"

	"github.com/stashgo/stash/internal/childproc"
	"go.uber.org/goleak"
)

// children are the scenarios a re-executed test binary runs instead of
// the tests, by name, each registered by the file that tests with it. They
// run from TestMain, before anything else in the process (no runtime timer
// set, no descriptor opened by a test). Each one exits the process itself or
// returns (exit status 0).
var children = &childproc.Set{
	Env:       "POLLER_TEST_CHILD",
	Scenarios: map[string]func(){},
}

// childLimit is how long a child may run before it is killed.
const childLimit = time.Minute

func TestMain(m *testing.M) {
	children.ServeMain()
	goleak.VerifyTestMain(m)
}
