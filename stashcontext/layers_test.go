package stashcontext_test

import (
	stdcontext "context"
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stretchr/testify/require"
)

// A layer is one context of a chain, each made from the one before.
type layer struct {
	maker  string // what made it, as "pkg.Func"
	ctx    stdcontext.Context
	cancel func() // nil if the layer cannot be canceled itself
	// cause is the cause its cancel gives (WithCancelCause), nil if none.
	cause error
	// async reports that the layer is canceled in a goroutine of package
	// context's when a layer above it is: a layer made by package context
	// on a wrapper package context made of a context of this package (see
	// doc.go), or on a context of this package linked to a parent of
	// package context (see link.go), whose cancel cannot run this
	// package's code.
	async bool
	// linked reports a context of this package linked to a parent of
	// package context.
	linked bool
}

// A layerMaker makes a layer on a parent.
type layerMaker struct {
	name string
	std  bool // made by package context
	make func(parent stdcontext.Context, i int) layer
}

type layerKey int

var layerMakers = []layerMaker{
	{"context.WithCancel", true, func(p stdcontext.Context, _ int) layer {
		ctx, cancel := stdcontext.WithCancel(p)
		return layer{ctx: ctx, cancel: cancel}
	}},
	{"context.WithCancelCause", true, func(p stdcontext.Context, i int) layer {
		ctx, cancel := stdcontext.WithCancelCause(p)
		cause := fmt.Errorf("cause of layer %d", i)
		return layer{ctx: ctx, cancel: func() { cancel(cause) }, cause: cause}
	}},
	{"context.WithTimeout", true, func(p stdcontext.Context, _ int) layer {
		ctx, cancel := stdcontext.WithTimeout(p, long)
		return layer{ctx: ctx, cancel: cancel}
	}},
	{"context.WithValue", true, func(p stdcontext.Context, i int) layer {
		return layer{ctx: stdcontext.WithValue(p, layerKey(i), i)}
	}},
	{"stashcontext.WithCancel", false, func(p stdcontext.Context, _ int) layer {
		ctx, cancel := context.WithCancel(p)
		return layer{ctx: ctx, cancel: cancel}
	}},
	{"stashcontext.WithCancelCause", false, func(p stdcontext.Context, i int) layer {
		ctx, cancel := context.WithCancelCause(p)
		cause := fmt.Errorf("cause of layer %d", i)
		return layer{ctx: ctx, cancel: func() { cancel(cause) }, cause: cause}
	}},
	{"stashcontext.WithTimeout", false, func(p stdcontext.Context, _ int) layer {
		ctx, cancel := context.WithTimeout(p, long)
		return layer{ctx: ctx, cancel: cancel}
	}},
	{"stashcontext.WithDeadline", false, func(p stdcontext.Context, _ int) layer {
		ctx, cancel := context.WithDeadline(p, time.Now().Add(long))
		return layer{ctx: ctx, cancel: cancel}
	}},
	{"stashcontext.WithValue", false, func(p stdcontext.Context, i int) layer {
		return layer{ctx: context.WithValue(p, layerKey(i), i)}
	}},
}

// isStashType reports whether ctx is of one of this package's types.
func isStashType(ctx stdcontext.Context) bool {
	return strings.HasPrefix(fmt.Sprintf("%T", ctx), "*stashcontext.")
}

// buildLayers makes n layers on Background with makers chosen by r among
// those allow admits.
func buildLayers(r *rand.Rand, n int, allow func(layerMaker) bool) []layer {
	var makers []layerMaker
	for _, m := range layerMakers {
		if allow(m) {
			makers = append(makers, m)
		}
	}
	layers := make([]layer, 0, n)
	parent := stdcontext.Background()
	// owner is the layer whose Done channel parent's is, -1 for none.
	owner := -1
	for i := range n {
		m := makers[r.Intn(len(makers))]
		l := m.make(parent, i)
		l.maker = m.name
		// Package context attaches a cancelable child to a parent of its own
		// types, or of this package's (which have an AfterFunc method), in
		// the goroutine that cancels; to a context.WithValue of this
		// package's context, with a goroutine.
		if m.std && l.cancel != nil && i > 0 && owner >= 0 &&
			(layers[i-1].maker == "context.WithValue" && isStashType(layers[owner].ctx) || layers[owner].linked) {
			l.async = true
		}
		// This package links a cancelable context of its own under a
		// cancelable parent of package context's, or under a linked one.
		if isStashType(l.ctx) && l.cancel != nil && owner >= 0 &&
			(!isStashType(layers[owner].ctx) || layers[owner].linked) {
			l.linked = true
		}
		if l.cancel != nil {
			owner = i
		}
		layers = append(layers, l)
		parent = l.ctx
	}
	return layers
}

// checkLayersCancel cancels layer k of layers and checks every layer below
// it: done when cancel returns, unless a layer package context attached
// with a goroutine lies between (then done soon after); Err Canceled and
// Cause the cause of the layer canceled.
func checkLayersCancel(t *testing.T, layers []layer, k int) {
	t.Helper()
	for i, l := range layers {
		require.NoError(t, l.ctx.Err(), "layer %d (%s) done before any cancel", i, l.maker)
	}
	layers[k].cancel()
	sync := true
	for i := k + 1; i < len(layers); i++ {
		l := layers[i]
		if l.async {
			sync = false
		}
		if sync {
			require.True(t, isDone(l.ctx), "layer %d (%s) not done when the cancel of layer %d (%s) returned: %v",
				i, l.maker, k, layers[k].maker, l.ctx)
		} else {
			wait(t, l.ctx)
		}
		require.Equal(t, stdcontext.Canceled, l.ctx.Err(), "layer %d (%s)", i, l.maker)
		want := layers[k].cause
		if want == nil {
			want = stdcontext.Canceled
		}
		require.Equal(t, want, stdcontext.Cause(l.ctx), "layer %d (%s)", i, l.maker)
	}
	for i := range k {
		require.NoError(t, layers[i].ctx.Err(), "layer %d (%s) above the canceled one", i, layers[i].maker)
	}
}

// cancelable returns the indices of the layers that have a cancel.
func cancelable(layers []layer) []int {
	var ks []int
	for i, l := range layers {
		if l.cancel != nil {
			ks = append(ks, i)
		}
	}
	return ks
}

// TestLayersSynchronous builds chains of 30 layers, each made at random by
// package context or by this package, cancels one at random, and checks
// that every layer below it is done before its cancel returns. Package
// context attaches a child to a context.WithValue of this package's
// context with a goroutine, as it does for any Context of a type not its
// own: the layers below such a child are checked to be done soon after.
func TestLayersSynchronous(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	async := 0
	for range 300 {
		layers := buildLayers(r, 30, func(layerMaker) bool { return true })
		ks := cancelable(layers)
		if len(ks) == 0 {
			continue
		}
		for _, l := range layers {
			if l.async {
				async++
			}
		}
		checkLayersCancel(t, layers, ks[r.Intn(len(ks))])
		for _, l := range layers {
			if l.cancel != nil {
				l.cancel()
			}
		}
	}
	t.Logf("%d layers attached with a goroutine by package context", async)
}

// TestLayersSynchronousNoStdValue is TestLayersSynchronous without
// context.WithValue: then every layer is attached in the goroutine that
// cancels its parent, whoever made it, but for package context's layers
// below a linked layer of this package, when a layer of package context
// above that is canceled (see link.go).
func TestLayersSynchronousNoStdValue(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	for range 300 {
		layers := buildLayers(r, 30, func(m layerMaker) bool { return m.name != "context.WithValue" })
		linked := false
		for _, l := range layers {
			require.False(t, l.async && !linked, "layer %s attached with a goroutine", l.maker)
			linked = linked || l.linked
		}
		ks := cancelable(layers)
		if len(ks) == 0 {
			continue
		}
		checkLayersCancel(t, layers, ks[r.Intn(len(ks))])
		for _, l := range layers {
			if l.cancel != nil {
				l.cancel()
			}
		}
	}
}

// durations matches what a WithDeadline's String says of the time left,
// which differs from one call to the next.
var durations = regexp.MustCompile(`\[[^\]]*\]`)

// TestLayersString builds the same chains of layers made by this package
// and by package context, and checks that String and Value agree, layer by
// layer, and that the layers below a canceled one are done, with the same
// Err and Cause.
func TestLayersString(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	deadline := time.Now().Add(long)
	type mk struct {
		stash, std func(stdcontext.Context, int) (stdcontext.Context, func())
	}
	causeOf := func(i int) error { return fmt.Errorf("cause of layer %d", i) }
	makers := []mk{
		{
			func(p stdcontext.Context, _ int) (stdcontext.Context, func()) {
				ctx, cancel := context.WithCancel(p)
				return ctx, cancel
			},
			func(p stdcontext.Context, _ int) (stdcontext.Context, func()) {
				ctx, cancel := stdcontext.WithCancel(p)
				return ctx, cancel
			},
		},
		{
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				ctx, cancel := context.WithCancelCause(p)
				return ctx, func() { cancel(causeOf(i)) }
			},
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				ctx, cancel := stdcontext.WithCancelCause(p)
				return ctx, func() { cancel(causeOf(i)) }
			},
		},
		{
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				ctx, cancel := context.WithDeadline(p, deadline.Add(-time.Duration(i)*time.Second))
				return ctx, cancel
			},
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				ctx, cancel := stdcontext.WithDeadline(p, deadline.Add(-time.Duration(i)*time.Second))
				return ctx, cancel
			},
		},
		{
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				ctx, cancel := context.WithDeadline(p, deadline.Add(time.Duration(i)*time.Second))
				return ctx, cancel
			},
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				ctx, cancel := stdcontext.WithDeadline(p, deadline.Add(time.Duration(i)*time.Second))
				return ctx, cancel
			},
		},
		{
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				return context.WithValue(p, layerKey(i), i), nil
			},
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				return stdcontext.WithValue(p, layerKey(i), i), nil
			},
		},
		{
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				return context.WithoutCancel(p), nil
			},
			func(p stdcontext.Context, i int) (stdcontext.Context, func()) {
				return stdcontext.WithoutCancel(p), nil
			},
		},
	}
	for range 200 {
		var stash, std []stdcontext.Context
		var stashCancel, stdCancel []func()
		ps, pd := context.Background(), stdcontext.Background()
		for i := range 30 {
			m := makers[r.Intn(len(makers))]
			cs, fs := m.stash(ps, i)
			cd, fd := m.std(pd, i)
			stash, std = append(stash, cs), append(std, cd)
			stashCancel, stdCancel = append(stashCancel, fs), append(stdCancel, fd)
			ps, pd = cs, cd
		}
		for i := range stash {
			require.Equal(t, durations.ReplaceAllString(fmt.Sprint(std[i]), "[]"),
				durations.ReplaceAllString(fmt.Sprint(stash[i]), "[]"), "layer %d", i)
			for j := range 30 {
				require.Equal(t, std[i].Value(layerKey(j)), stash[i].Value(layerKey(j)), "layer %d, key %d", i, j)
			}
			dd, okd := std[i].Deadline()
			ds, oks := stash[i].Deadline()
			require.Equal(t, okd, oks, "layer %d", i)
			require.True(t, dd.Equal(ds), "layer %d: deadline %v, want %v", i, ds, dd)
		}
		var ks []int
		for i, f := range stashCancel {
			if f != nil {
				ks = append(ks, i)
			}
		}
		if len(ks) == 0 {
			continue
		}
		k := ks[r.Intn(len(ks))]
		stashCancel[k]()
		stdCancel[k]()
		for i := range stash {
			require.Equal(t, isDone(std[i]), isDone(stash[i]), "layer %d (%v), layer %d canceled", i, stash[i], k)
			require.Equal(t, std[i].Err(), stash[i].Err(), "layer %d", i)
			ce, se := stdcontext.Cause(std[i]), stdcontext.Cause(stash[i])
			if ce == nil || se == nil || ce.Error() != se.Error() {
				require.True(t, errors.Is(se, ce), "layer %d: cause %v, want %v", i, se, ce)
			}
		}
		for i := range stash {
			if stashCancel[i] != nil {
				stashCancel[i]()
				stdCancel[i]()
			}
		}
	}
}
