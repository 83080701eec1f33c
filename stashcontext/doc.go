// Package stashcontext is a drop-in replacement for package context whose
// deadlines are timers on stash's wheel.
//
// Swap the import and nothing else:
//
//	import context "github.com/stashgo/stash/stashcontext"
//
// WithTimeout, WithDeadline, WithTimeoutCause and WithDeadlineCause return a
// context of this package whose deadline is a timer on the process-wide
// wheel of package stashtime (stashtime.AfterFunc). Every other name of
// package context is re-exported unchanged: Context, CancelFunc and
// CancelCauseFunc are aliases, Canceled and DeadlineExceeded are the same
// values, and Background, TODO, WithCancel, WithCancelCause, WithValue,
// WithoutCancel, AfterFunc and Cause are package context's, so contexts of
// both packages mix freely.
//
// A context of this package behaves as package context's does: its
// Deadline is the earlier of its parent's and its own (if the parent's is
// earlier, it is a cancel-only context, as context.WithCancel makes); Err
// is DeadlineExceeded once the deadline passes, never before, and Canceled
// once it is canceled; context.Cause reports WithDeadlineCause's cause; and
// canceling its parent cancels it. Children made with either package,
// context.AfterFunc, context.WithoutCancel and Value work as with package
// context, and the children attach to it without a goroutine each: it has
// the AfterFunc method that package context uses for that. Canceling it
// puts its timer in a pool for the next context: stopped if it was armed
// more than 2s ahead, left armed otherwise, and then a next context whose
// deadline is no earlier keeps it as it is, so that contexts with one
// timeout that finish early do not touch the wheel at all. When such a
// timer fires before the deadline of the context that holds it, it is
// re-armed for that deadline (see slot.go); a timer left armed for no
// context fires within 2s and leaves the wheel.
//
// # What moves onto the wheel and what does not
//
// Only the deadlines move, and each only once something could see it
// pass: the first call of Done or Err (context.Cause calls Err), or the
// first child or AfterFunc attached. Until then nothing can tell whether
// the deadline has passed, so a context canceled before anyone looks at it
// never touches the wheel, and one looked at after its deadline is
// canceled with DeadlineExceeded there and then. Deadline, Value and
// String do not arm it.
//
// WithCancel and WithCancelCause are package context's. The Done channel
// is made lazily and closed by the first cancel, as there; context.AfterFunc's
// f runs in a goroutine of its own, as there. When a deadline passes, the wheel runs the cancel in a
// goroutine of its own (stashtime.AfterFunc), as package time does.
//
// # Differences from package context
//
//   - A context of this package attaches to a parent made by package
//     context (WithCancel, WithTimeout) with context.AfterFunc, whose f
//     runs in a goroutine of its own when the parent is canceled. So the
//     parent's cancel function returns before this context's Done channel
//     is closed, microseconds before, where package context closes it
//     first. Err, Done and context.Cause look at such a parent
//     themselves, so they report the cancellation at once; contexts made
//     from this one with package context see it once Done is closed. A
//     parent of this package cancels its children before its cancel
//     function returns.
//   - A context that package context makes under one of this package's
//     behind another layer (context.WithCancel of context.WithValue of
//     it) waits for it in a goroutine, as it does for any Context
//     implementation not its own. WithTimeout and its kin of this
//     package do not; made directly from a context of this package,
//     package context's children do not either.
//   - Its String is that of package context's contexts, but a cancel-only
//     child of a context of package context's WithCancel under this
//     package's reads "context.stopCtx.WithCancel", as package context
//     prints its own children of any context with an AfterFunc method.
//   - %T prints this package's type, not *context.timerCtx.
//   - Inside a testing/synctest bubble, stashtime hands timers to package
//     time, so deadlines run on the bubble's fake clock, and their timers
//     are not pooled.
package stashcontext
