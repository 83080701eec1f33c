package stashcontext_test

import (
	stdcontext "context"
	"testing"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stretchr/testify/require"
)

// TestAfterFuncCancelsAncestors registers functions that cancel their
// context and its parent, through the AfterFunc method and through
// context.AfterFunc: whichever cancels first, they run and return, with
// none waiting on a cancel that waits on it.
func TestAfterFuncCancelsAncestors(t *testing.T) {
	for _, first := range []string{"cancel", "expire", "parent"} {
		t.Run(first, func(t *testing.T) {
			parent, cancelParent := context.WithCancel(context.Background())
			defer cancelParent()
			d := long
			if first == "expire" {
				d = time.Millisecond
			}
			c, cancel := context.WithTimeout(parent, d)
			defer cancel()
			g, cancelG := stdcontext.WithCancel(c) // a function of package context's too
			defer cancelG()
			both := func() { cancel(); cancelParent() }
			ran := make(chan string, 2)
			c.(interface{ AfterFunc(func()) func() bool }).AfterFunc(func() { both(); ran <- "method" })
			context.AfterFunc(c, func() { both(); ran <- "context.AfterFunc" })
			switch first {
			case "cancel":
				cancel()
			case "parent":
				cancelParent()
			}
			for range 2 {
				select {
				case <-ran:
				case <-time.After(patience):
					t.Fatalf("an AfterFunc function did not return after %v", patience)
				}
			}
			for _, ctx := range []stdcontext.Context{parent, c, g} {
				require.True(t, isDone(ctx))
			}
		})
	}
}
