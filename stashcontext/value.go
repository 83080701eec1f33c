package stashcontext

import "reflect"

// A valueCtx is what WithValue returns for a parent that is a context of
// this package, or wraps one with the same Done channel: package context's
// valueCtx, with an AfterFunc method. Package context attaches a child to
// a parent of a type not its own through that method if it has one, in the
// goroutine that cancels the parent, and with a goroutine of its own
// waiting on the parent's Done channel if not; the method makes a child of
// this context as prompt as a child of p.
type valueCtx struct {
	Context
	key, val any
	// p is the context of this package whose Done channel Context's is,
	// and which this context is canceled with.
	p *timerCtx
}

// Value returns val for key, and the parent's value for any other key.
func (c *valueCtx) Value(key any) any {
	if c.key == key {
		return c.val
	}
	return c.Context.Value(key)
}

// AfterFunc arranges to call f after c is canceled, as timerCtx.AfterFunc
// does: c is canceled when p is.
func (c *valueCtx) AfterFunc(f func()) (stop func() bool) { return c.p.AfterFunc(f) }

// String describes c as package context describes its own.
func (c *valueCtx) String() string {
	return contextName(c.Context) + ".WithValue(" +
		stringify(c.key) + ", " +
		stringify(c.val) + ")"
}

// stringify is package context's: it describes a key or a value without
// fmt.
func stringify(v any) string {
	switch s := v.(type) {
	case interface{ String() string }:
		return s.String()
	case string:
		return s
	case nil:
		return "<nil>"
	}
	return reflect.TypeOf(v).String()
}
