// Package stashcontext is a drop-in replacement for package context whose
// deadlines are timers on stash's wheel.
//
// Swap the import and nothing else:
//
//	import context "github.com/stashgo/stash/stashcontext"
//
// WithTimeout, WithDeadline, WithTimeoutCause and WithDeadlineCause return a
// context of this package whose deadline is a timer on the process-wide
// wheel of package stashtime (stashtime.AfterFunc), under any parent: one
// made by package context, http.Request.Context or signal.NotifyContext
// too (see below). WithCancel, WithCancelCause and WithValue return
// contexts of this package under this package's contexts, so that a tree
// of contexts stays this package's from its root down, and package
// context's own under a parent that package context can cancel and that
// is none of this package's contexts: they have no deadline to move. The
// other names are package context's, re-exported: Context,
// CancelFunc and CancelCauseFunc are aliases, Canceled and DeadlineExceeded
// are the same values, and Background, TODO, WithoutCancel, AfterFunc and
// Cause are package context's functions, so contexts of both packages mix
// freely.
//
// A context of this package behaves as package context's does: its
// Deadline is the earlier of its parent's and its own (if the parent's is
// earlier, it is a cancel-only context, as context.WithCancel makes); Err
// is DeadlineExceeded once the deadline passes, never before, and Canceled
// once it is canceled; context.Cause reports WithDeadlineCause's cause;
// String and Value answer as package context's contexts do, layer by
// layer; and canceling its parent cancels it. Children made with either
// package, context.AfterFunc, context.WithoutCancel and Value work as with
// package context. Canceling it puts its timer in a pool for the next
// context: stopped if it was armed more than 2s ahead, left armed
// otherwise, and then a next context whose deadline is no earlier keeps it
// as it is, so that contexts with one timeout that finish early do not
// touch the wheel at all. When such a timer fires before the deadline of
// the context that holds it, it is re-armed for that deadline (see
// slot.go); a timer left armed for no context fires within 2s and leaves
// the wheel. A finished context leaves its parent's list of children.
//
// # Cancellation is synchronous
//
// As with package context, when a cancel function returns (or a deadline's
// cancel has run), the canceled context and every context derived from it
// by this package are done: their Done channels are closed and Err reports
// it, whatever mix of the two packages lies between. A context of this
// package lists its children and cancels them in the goroutine that cancels
// it, those of this package before it closes its Done channel; under a
// parent of package context that can be canceled, it is linked to the
// parent so that the parent's cancel closes its Done channel (see below).
// A cancel that finds the context canceled already, by its deadline or by
// a cancel still running in another goroutine, or a parent's cancel that
// reaches it then, returns only once that one is done with its children,
// as package context's waits on the context's lock.
//
// Children that package context makes (code that imports context) are
// canceled as follows:
//
//   - made directly from a context of this package, or from this package's
//     WithValue of one: in the goroutine that cancels it, before its cancel
//     function returns, through the AfterFunc method these contexts have and
//     package context uses for that. Such a child's String starts with
//     "context.stopCtx", as package context prints any child it attaches
//     that way; package context's own child would print its parent there.
//   - made from a wrapper of such a context that package context made
//     (context.WithValue of it) or that other code made: package context
//     waits for the wrapper's Done channel in a goroutine of its own, as it
//     does for any Context implementation not its own, so the child is done
//     once that goroutine runs, microseconds after the cancel function
//     returns. Package context finds its own parents through an unexported
//     Value key, which answers only with its own *cancelCtx: a context of
//     this package cannot be found that way, and the wrapper has no AfterFunc
//     method. Use this package's WithValue for such wrappers.
//
// # Under a parent of package context
//
// Package context cancels in the goroutine that cancels a parent only the
// children of its own types, and it runs no code of other packages there.
// So a deadline context of this package under a parent that package
// context can cancel (and that is none of this package's contexts, nor
// wraps one with the same Done channel) is linked to it: it takes its Done
// channel from a child that package context makes of that parent,
// context.WithCancelCause(parent), made when Done is first asked for (at
// once under a Context of other code, which may tell only the children it
// has when canceled). The
// parent's cancel closes it before it returns; Err reports the parent's
// error, and Cause its cause, as soon as the parent is canceled (until that
// child is made, Err asks the parent). The contexts of this package below
// it are linked the same way, their children made under its, and are done
// as soon. Its own cancel, or its deadline, cancels its children of this
// package, closes Done (canceling the child it holds, which takes it off
// the parent's children), then cancels the children package context made
// of it, which see its error, DeadlineExceeded once the deadline has
// passed. WithTimeout then cancel under a context.WithCancel parent
// allocates 112 bytes in 2 allocations, against package context's 272 in
// 4; with Done asked for, 344 in 6 against 384 in 5.
//
// One case stays asynchronous: a child that package context makes of such
// a context, when the parent of package context above is canceled. The
// parent's cancel cannot reach it (it can run only package context's
// code), so a context.AfterFunc on the held child, registered with the
// first such child, cancels it in a goroutine of its own, a moment after
// the parent's cancel returns (or at once, when anything asks Err of the
// context between them).
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
// The Done channel is made lazily and closed by the first cancel, as in
// package context; context.AfterFunc's f runs in a goroutine of its own,
// as there. When a deadline passes, the wheel runs the cancel in a
// goroutine of its own (stashtime.AfterFunc), as package time does.
//
// # Tests on fake time
//
// Inside a testing/synctest bubble the package-level functions, and
// On(stashtime.Default()), run on the bubble's clock: a WithTimeout of an
// hour is done after exactly an hour of the bubble's time.
//
// On(t) returns the Deadlines of a stashtime.Timers, the value production
// code takes to start timers: its WithTimeout, WithDeadline and their
// Cause kin make contexts whose deadlines are timers of t, measured by
// t's clock. Code that takes a Timers runs on the process-wide wheel
// (stashtime.Default()) in production, and its tests hand it a Wheel over
// a stashtime.ManualClock (stashtest.New makes one), where a deadline
// passes only as the test advances the clock (see Deadlines for how such
// contexts differ).
//
// # Counters
//
// Stats reports how many timers this package's deadlines armed, reused
// from the pool, pooled and fired, and how many contexts their deadline
// ended: counted per P, only on the paths that touch a timer.
//
// # Other differences from package context
//
//   - %T prints this package's types, not *context.timerCtx.
//   - Inside a testing/synctest bubble, stashtime hands timers to package
//     time, so deadlines made there run on the bubble's fake clock, and
//     their timers are not pooled. A deadline taken outside a bubble (it
//     has a monotonic clock reading) and first looked at inside one is
//     compared with the real clock then: if it has passed, the context is
//     canceled with DeadlineExceeded at once, as package context's timer,
//     armed on the real clock when the context was made, would have done.
//     If it has not, its timer goes on the bubble's fake clock, armed for
//     what its wall clock reading says is left (from the fake clock's year
//     2000, decades), so that the fake clock does not end it early; package
//     context's timer would fire on the real clock, from outside the
//     bubble, and close a Done channel made inside it, which is a fatal
//     error.
//   - A deadline without a monotonic clock reading (time.Date, t.Round(0),
//     a time from another process) is compared with the wall clock, as
//     package context's time.Until does, when it is put on the wheel, and
//     again when its timer fires.
package stashcontext
