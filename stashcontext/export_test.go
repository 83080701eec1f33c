package stashcontext

// ChildCount returns how many children ctx, a context of this package or
// one wrapping it, lists: those its cancel would walk. It returns -1 for
// any other context.
func ChildCount(ctx Context) int {
	c, ok := ctx.Value(&selfKey).(*timerCtx)
	if !ok {
		return -1
	}
	x := c.x.Load()
	if x == nil {
		return 0 // no children listed yet
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.children)
}

// CancelWaits reports whether a cancel of ctx, a context of this package
// or one wrapping it, waits for ctx's first cancel to finish with its
// children (see waitCanceled).
func CancelWaits(ctx Context) bool {
	c := ctx.Value(&selfKey).(*timerCtx)
	x := c.x.Load()
	if x == nil {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.waited
}
