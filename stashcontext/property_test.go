package stashcontext_test

import (
	stdcontext "context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"pgregory.net/rapid"
)

// The kinds of node in a property test's tree of contexts.
const (
	kindStdCancel  = iota // context.WithCancelCause
	kindStdTimeout        // context.WithTimeoutCause
	kindTimeout           // this package's WithTimeoutCause
	kindValue             // context.WithValue
	kindWithout           // context.WithoutCancel
	numKinds
)

var propTimeouts = []time.Duration{-time.Millisecond, 0, time.Millisecond, 3 * time.Millisecond, 10 * time.Millisecond, time.Hour}

type node struct {
	parent   int // index; -1 for the root
	kind     int
	timeout  time.Duration
	cause    error // the cause given to the constructor or the cancel
	ctx      stdcontext.Context
	cancel   func()
	canceled bool // cancel was called (set before the call)

	mu       sync.Mutex
	firstErr error // the first non-nil Err observed
}

// observe checks what ctx says now against the rules of package context
// that hold at any instant, and records the first error seen.
func (n *node) observe(t *rapid.T, i int) {
	err := n.ctx.Err()
	if err == nil {
		return
	}
	if !isDone(n.ctx) {
		t.Errorf("node %d: Err %v with Done open", i, err)
	}
	if errors.Is(err, stdcontext.DeadlineExceeded) {
		if dl, ok := n.ctx.Deadline(); !ok || time.Now().Before(dl) {
			t.Errorf("node %d: DeadlineExceeded before its deadline %v (%v)", i, dl, ok)
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.firstErr == nil {
		n.firstErr = err
	} else if n.firstErr != err {
		t.Errorf("node %d: Err changed from %v to %v", i, n.firstErr, err)
	}
}

// TestPropertyTree builds random trees of contexts of both packages, cancels
// them in random order from several goroutines while their deadlines
// expire and other goroutines look at them, and checks every context
// against package context's rules.
func TestPropertyTree(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nodes := []*node{{parent: -1, kind: kindValue, ctx: stdcontext.Background(), cancel: func() {}}}
		size := rapid.IntRange(1, 24).Draw(rt, "size")
		for i := 1; i <= size; i++ {
			n := &node{
				parent:  rapid.IntRange(0, i-1).Draw(rt, "parent"),
				kind:    rapid.IntRange(0, numKinds-1).Draw(rt, "kind"),
				timeout: rapid.SampledFrom(propTimeouts).Draw(rt, "timeout"),
			}
			if rapid.Bool().Draw(rt, "cause") {
				n.cause = fmt.Errorf("cause %d", i)
			}
			p := nodes[n.parent].ctx
			switch n.kind {
			case kindStdCancel:
				ctx, cancel := stdcontext.WithCancelCause(p)
				n.ctx, n.cancel = ctx, func() { cancel(n.cause) }
			case kindStdTimeout:
				n.ctx, n.cancel = stdcontext.WithTimeoutCause(p, n.timeout, n.cause)
			case kindTimeout:
				n.ctx, n.cancel = context.WithTimeoutCause(p, n.timeout, n.cause)
			case kindValue:
				n.ctx, n.cancel = stdcontext.WithValue(p, key("k"), i), func() {}
			case kindWithout:
				n.ctx, n.cancel = stdcontext.WithoutCancel(p), func() {}
			}
			nodes = append(nodes, n)
		}
		// Who cancels what, in what order, from which goroutine.
		const workers = 3
		var plan [workers][]int
		for _, i := range rapid.Permutation(indices(len(nodes))).Draw(rt, "order") {
			if i > 0 && rapid.Bool().Draw(rt, "cancels") {
				w := rapid.IntRange(0, workers-1).Draw(rt, "worker")
				plan[w] = append(plan[w], i)
			}
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, i := range plan[w] {
					nodes[i].canceled = true
					nodes[i].cancel()
					time.Sleep(time.Duration(i%3) * time.Millisecond)
				}
			}()
		}
		var watch sync.WaitGroup
		for range 2 {
			watch.Add(1)
			go func() {
				defer watch.Done()
				for {
					for i, n := range nodes {
						n.observe(rt, i)
					}
					select {
					case <-stop:
						return
					default:
						time.Sleep(100 * time.Microsecond)
					}
				}
			}()
		}
		wg.Wait()

		// Which contexts must end up done: canceled ones, ones past their
		// own deadline, and everything below them (but for WithoutCancel).
		must := make([]bool, len(nodes))
		for i := 1; i < len(nodes); i++ {
			n := nodes[i]
			switch n.kind {
			case kindWithout:
				continue
			case kindStdCancel:
				must[i] = n.canceled
			case kindStdTimeout, kindTimeout:
				must[i] = n.canceled || n.timeout < time.Hour
			}
			must[i] = must[i] || must[n.parent]
		}
		for i, n := range nodes {
			if must[i] {
				select {
				case <-n.ctx.Done():
				case <-time.After(patience):
					rt.Fatalf("node %d (kind %d) not done after %v", i, n.kind, patience)
				}
			}
		}
		close(stop)
		watch.Wait()

		for i, n := range nodes {
			n.observe(rt, i)
			checkNode(rt, nodes, i, must[i])
		}
		for _, n := range nodes {
			n.cancel()
		}
	})
}

// checkNode checks node i, after everything that must be done is, against
// its parent.
func checkNode(t *rapid.T, nodes []*node, i int, must bool) {
	n := nodes[i]
	if i == 0 {
		return
	}
	p := nodes[n.parent]
	err, perr := n.ctx.Err(), p.ctx.Err()
	cause, pcause := stdcontext.Cause(n.ctx), stdcontext.Cause(p.ctx)
	dl, hasDL := n.ctx.Deadline()
	pdl, phasDL := p.ctx.Deadline()
	if must && err == nil {
		t.Errorf("node %d: not canceled", i)
	}
	if (err == nil) != (cause == nil) {
		t.Errorf("node %d: Err %v, Cause %v", i, err, cause)
	}
	switch n.kind {
	case kindWithout:
		if err != nil || hasDL || n.ctx.Done() != nil {
			t.Errorf("node %d: WithoutCancel: %v %v", i, err, hasDL)
		}
		return
	case kindValue:
		if err != perr || cause != pcause || hasDL != phasDL || !dl.Equal(pdl) {
			t.Errorf("node %d: value: %v %v, parent %v %v", i, err, cause, perr, pcause)
		}
		return
	}
	if perr != nil && err == nil {
		t.Errorf("node %d: parent canceled (%v), node not", i, perr)
	}
	if n.kind == kindStdTimeout || n.kind == kindTimeout {
		// The deadline is the earlier of the parent's and its own.
		if !hasDL {
			t.Errorf("node %d: no deadline", i)
		}
		if phasDL && dl.After(pdl) {
			t.Errorf("node %d: deadline %v after the parent's %v", i, dl, pdl)
		}
	}
	if err == nil {
		return
	}
	// Where the error came from: the parent, with its error and cause;
	// the node's own cancel; or its own deadline.
	fromParent := err == perr && cause == pcause
	own := false
	switch {
	case err == stdcontext.Canceled:
		own = n.canceled && cause == err || n.kind == kindStdCancel && n.canceled && cause == n.cause && n.cause != nil
	case err == stdcontext.DeadlineExceeded:
		ownDL := n.kind != kindStdCancel && (!phasDL || !pdl.Before(dl))
		own = ownDL && (cause == err && n.cause == nil || cause == n.cause && n.cause != nil)
	}
	if !fromParent && !own {
		t.Errorf("node %d (kind %d, canceled %v, cause %v): Err %v Cause %v; parent (kind %d): Err %v Cause %v",
			i, n.kind, n.canceled, n.cause, err, cause, p.kind, perr, pcause)
	}
}

func indices(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
