package stashcontext_test

import (
	"errors"
	"fmt"
	"time"

	context "github.com/stashgo/stash/stashcontext"
)

// Swap the import, and every deadline is a timer on stash's wheel.
func ExampleWithTimeout() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel() // releases the context's timer if the work finishes first

	select {
	case <-time.After(time.Second):
		fmt.Println("overslept")
	case <-ctx.Done():
		fmt.Println(ctx.Err())
	}
	// Output: context deadline exceeded
}

func ExampleWithDeadlineCause() {
	errSlow := errors.New("backend too slow")
	ctx, cancel := context.WithDeadlineCause(context.Background(), time.Now().Add(time.Millisecond), errSlow)
	defer cancel()

	<-ctx.Done()
	fmt.Println(ctx.Err())
	fmt.Println(context.Cause(ctx))
	// Output:
	// context deadline exceeded
	// backend too slow
}

// Children made with package context attach to a context of this package
// without a goroutine each, and see its error.
func ExampleAfterFunc() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()

	done := make(chan struct{})
	context.AfterFunc(ctx, func() { close(done) })

	cancel()
	<-done
	fmt.Println(child.Err())
	// Output: context canceled
}
