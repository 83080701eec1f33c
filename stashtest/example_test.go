package stashtest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashtest"
	"github.com/stashgo/stash/stashtime"
)

// Sessions is production code: it takes a stashtime.Timers, which main
// hands stashtime.Default().
type Sessions struct {
	timers  stashtime.Timers
	expired map[string]bool
	done    chan string
}

func NewSessions(timers stashtime.Timers) *Sessions {
	return &Sessions{timers: timers, expired: map[string]bool{}, done: make(chan string, 10)}
}

// Open starts a session that expires after ttl: an AfterFunc flips its
// state.
func (s *Sessions) Open(id string, ttl time.Duration) {
	s.timers.AfterFunc(ttl, func() { s.done <- id })
}

// Expired reports the sessions expired so far.
func (s *Sessions) Expired() []string {
	var ids []string
	for {
		select {
		case id := <-s.done:
			ids = append(ids, id)
		default:
			return ids
		}
	}
}

// A test makes the fake in one line and advances it: when Advance
// returns, the callbacks due have run, and their effect is there to read.
func Example() {
	t := &testing.T{} // in a test, the test's own
	clk := stashtest.New(t)
	defer clk.Close() // New registered it with t, which ends with the test
	s := NewSessions(clk)
	s.Open("alice", 30*time.Minute)
	s.Open("bob", time.Hour)

	clk.Advance(30 * time.Minute)
	fmt.Println("after 30m:", s.Expired())
	clk.Advance(30 * time.Minute)
	fmt.Println("after 1h:", s.Expired(), clk.Now().Sub(stashtest.Start))
	// Output:
	// after 30m: [alice]
	// after 1h: [bob] 1h0m0s
}

// The fake is the one value to inject: stashcontext.On takes it as it
// takes the Timers production code holds.
func ExampleWheel_Advance() {
	t := &testing.T{}
	clk := stashtest.New(t)
	defer clk.Close()
	ctx, cancel := stashcontext.On(clk).WithTimeout(stashcontext.Background(), time.Hour)
	defer cancel()
	done := ctx.Done()

	clk.Advance(59 * time.Minute)
	fmt.Println("+59m:", ctx.Err())
	clk.Advance(time.Minute)
	<-done // already closed: Advance waited for the timer's callback
	fmt.Println("+1h:", ctx.Err())
	// Output:
	// +59m: <nil>
	// +1h: context deadline exceeded
}
