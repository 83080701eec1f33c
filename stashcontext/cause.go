package stashcontext

import (
	"context"
	"errors"
	"time"
)

// context.Cause finds the cause of a context by asking it for the value of
// package context's private cancelCtxKey, and expects a *cancelCtx of that
// package, whose recorded cause it returns. cancelCtxKey is that key, learnt
// at init by asking context.Cause about a probe context; nil if that did not
// work, in which case context.Cause reports a context of this package's
// error as its cause, as it does for any context not its own.
var cancelCtxKey any

// A keyProbe is a canceled context that records the first key it is asked
// for.
type keyProbe struct {
	key any
	val any
}

func (p *keyProbe) Deadline() (time.Time, bool) { return time.Time{}, false }
func (p *keyProbe) Done() <-chan struct{}       { return closedchan }
func (p *keyProbe) Err() error                  { return Canceled }
func (p *keyProbe) Value(key any) any {
	if p.key == nil {
		p.key = key
	}
	if key == p.key {
		return p.val
	}
	return nil
}

func init() {
	p := new(keyProbe)
	_ = context.Cause(p)
	if p.key == nil {
		return
	}
	// Check that answering the key with what a canceled context of
	// package context answers makes context.Cause report its cause.
	want := errors.New("stashcontext: probe")
	cc, cancel := context.WithCancelCause(context.Background())
	cancel(want)
	check := &keyProbe{key: p.key, val: cc.Value(p.key)}
	if check.val == nil || context.Cause(check) != want {
		return
	}
	cancelCtxKey = p.key
}

// causeCarrier is c's answer to context.Cause's question: nil while c is not
// canceled or its cause is its error, so that context.Cause returns c.Err();
// else what a canceled context of package context with c's cause answers,
// made once. It looks through Err, which puts the deadline on the wheel:
// releases before Go 1.26 ask this question before they call Err.
func (c *timerCtx) causeCarrier() any {
	if c.Err() == nil {
		return nil
	}
	s := c.st.Load()
	if s.cause == nil {
		return nil
	}
	x := c.extra()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.carrier == nil {
		cc, cancel := context.WithCancelCause(context.Background())
		cancel(s.cause)
		x.carrier = cc.Value(cancelCtxKey)
	}
	return x.carrier
}
