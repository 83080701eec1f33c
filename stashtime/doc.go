// Package stashtime is a drop-in replacement for the timers of package time,
// for programs that run a great many of them.
//
// Swap the import and nothing else:
//
//	import time "github.com/stashgo/stash/stashtime"
//
// Timer, AfterFunc, After, NewTimer, Ticker, NewTicker, Tick and Sleep behave
// as in Go 1.23's package time: the same Stop and Reset results in every
// state, no stale values after Stop or Reset, the deadline instant as the
// value sent, fixed-rate ticks that drop for slow receivers, AfterFunc's f in
// its own goroutine, the same panics. Every other exported name of package
// time is re-exported unchanged, as an alias, so values move freely between
// code that imports either.
//
// # How it works
//
// These are the mechanisms that make up a wheel; to change how it fires
// timers, they are what to hold in mind:
//
//  1. The store (package internal/stash): a lock-free hierarchical slot
//     store keyed by deadline, in buckets of about 1 ms. Producers file a
//     timer with a few atomic operations and never block; one consumer at
//     a time walks the buckets in order, skips empty stretches and reclaims
//     what it has passed.
//  2. Placement (placement.go): where a pending timer waits, by how far
//     ahead it is due: in the near heap within a lookahead (16.8 ms); in the
//     store at its deadline; beyond about 1 s in the store one to two
//     grains early, on a grain of a quarter to an eighth of the distance,
//     so that far timers share dense buckets and the walk re-files them
//     closer; from 67 ms on first on a per-P list, and within the
//     lookahead too, for func and channel timers. Every holder lies in a
//     bucket at or before the deadline's, so the walk meets every timer in
//     time.
//  3. The intake (intake.go): each P's lists of timers not yet settled. A
//     far timer waits there until the consumer's next pass files it, and
//     most are stopped before then and never touch the store; a near one
//     until that pass takes it into the near heap, with no stop in the
//     store on the way; a channel
//     timer armed far waits there for the next garbage collection, after
//     which it refers to its channel weakly, so that an abandoned one is
//     collected.
//  4. The entry (entry.go): a timer's state, under its own small lock, with
//     the table of its states at the top of the file. Pushing a pending
//     deadline later (the idle-deadline pattern) is one CAS on the
//     deadline, without the lock, for a timer armed far enough ahead that
//     its slack is at the cap: the timer is re-filed, once, when its old
//     key comes.
//  5. The near heap and the precision rule (heap.go, precision.go): the
//     timers due within the lookahead wait in the consumer's binary heap,
//     which fires them in deadline order, each within its slack (see
//     Precision). A ticker due again within about 134 ms stays in it, and
//     one nobody receives from is fired less often (fire.go).
//  6. The wake-up rule (wakeup.go): whenever the driver sleeps, it is armed
//     no later than the latest instant (deadline plus slack) of every
//     pending timer. Producers only lower the armed instant (when they arm
//     a timer); the consumer only raises it, to a bound it computes from
//     where the timers wait (the heap, the first non-empty bucket, which it
//     may peep to sleep straight to its first timer, the overflow area),
//     and computes that bound again after publishing it. Everything else
//     (looking again at a growing bucket, pre-walking a large one, waking
//     to drain the intake) only wakes the driver sooner. Built with the
//     stashcheck tag, a checker compares the armed instant with every
//     pending timer after each round and each producer call (wakecheck.go).
//  7. The consumer role (consumer.go, driver.go): one goroutine at a time
//     walks, fires, cleans and compacts. The driver, a goroutine that sleeps
//     to the nanosecond in the poller (package
//     poller: a timerfd in epoll on Linux), holds the role while it works;
//     a goroutine that finds timers due while the driver is not running
//     takes it for one pass, and then puts the driver's wake-up off (see
//     Who fires timers). Wheel.Sync waits for a round (syncs.go).
//  8. Housekeeping (compact.go): cleaning what the walk has passed, and
//     compacting the slots that Stop and Reset emptied once they outnumber
//     half the live timers, so that memory follows what is live.
//
// # Precision
//
// A timer never fires before its deadline, and at most a slack after it
// that grows with how far ahead it was armed: a power of two between a 32nd
// and a 16th of the distance, capped at DefaultSlack (about 524 µs):
//
//	armed d ahead     may fire up to
//	below 32 ns       0 (exact)
//	100 µs            4 µs
//	1 ms              32 µs
//	4 ms              131 µs
//	8.4 ms or more    524 µs
//
// The driver sleeps to the latest instant that still serves every timer in
// its near heap, so timers due close together fire in one wake-up, and a
// producer wakes it only if its own timer's latest instant comes sooner. A
// timer alone in its window fires at its deadline.
// Options.Slack sets another cap (up to about 1 ms), or none at all (every
// timer exact). The slack is measured from when the driver takes the timer
// into its heap, a lookahead before its deadline: a timer armed nearer may
// get less than the table says, never more. Deadline order holds among the
// timers of one wake-up; across wake-ups a timer may fire before one due
// earlier only within the latter's slack.
//
// The package-level Sleep of a millisecond or more is package time's Sleep:
// the runtime's timers fire on a millisecond's resolution, so from there on
// its sleep is as close to the deadline as the wheel's, at half the CPU.
// Shorter sleeps, and every sleep on a default wheel configured for less
// slack than DefaultSlack, are on the wheel; Wheel.Sleep always is.
//
// # Who fires timers
//
// The consumer role passes between the driver and the goroutines that use
// the wheel. The driver takes it for each round of work and gives it up
// before it sleeps. A goroutine that starts or resets a timer, or sleeps,
// checks whether timers are due (a clock reading against an instant the
// driver publishes: halfway through the slack of the first timer due) while
// the driver is not running; if so, and the role is free, it runs one pass
// of at most MaxBatch firings itself, as the runtime runs due timers from
// every P, and then puts the driver's wake-up off to the next instant it is
// needed (poller.Deferrer). So while goroutines keep coming by, they fire
// the timers and the driver sleeps on, and a busy process that keeps the
// driver's thread waiting for a processor does not keep its timers waiting
// too. Stats.Helped counts those passes.
//
// Asleep in the poller for less than 5 ms, the driver keeps its P, as any
// system call does; a longer sleep gives the P up first, since the
// runtime's monitor may take 10 ms to notice a P left in a system call
// while goroutines queue on it. So does a shorter one while every P is
// busy and goroutines wait (three sleeps in a row have found it so). If,
// the Ps crowded, a wake-up has had to wait 5 ms or more for a P, the
// goroutines are computing: a thread woken by the kernel queues
// behind them, each running a time slice. Then the driver sleeps on a
// runtime timer instead, which the scheduler runs between two of them,
// and the driver next, so that its timers reach their waiters as soon as
// package time's; the first timer after they start computing comes late
// once. So that the goroutines a
// pass made runnable do not wait on the driver's P, it yields once before
// it sleeps if there are two or more and the Ps are not crowded: the
// thread that ran the pass runs them, where a P handed off or taken back
// costs another thread. A lone one waits in the P's next slot, which an
// idle P takes at once.
//
// # What runs when
//
// On the system clock, a wheel's driver runs only while timers are due
// soon. It starts with the first timer armed, and its goroutine ends, its
// thread going back to the runtime, once no timer has been pending for
// 100 ms, or when the next thing it must wake for is 100 ms or more away;
// then a runtime timer brings it back 5 ms before that, or the first
// producer that needs it sooner starts it again. So a goroutine dump, or a
// leak checker such as go.uber.org/goleak, shows a goroutine of the
// wheel's ((*Wheel).run) only while a timer is due
// within about 100 ms, and for an instant about once a second while only
// farther ones are pending. A wheel on another clock
// (a ManualClock) keeps its driver from NewWheel to Close.
//
// The process-wide wheel that the package-level functions use starts on
// first use and is never stopped; NewWheel makes independent ones, on the
// system clock or on a ManualClock for deterministic tests.
//
// The process-wide wheel starts with the zero Options. A program that
// wants another configuration (a Slack, or every timer exact) calls
// SetDefaultOptions once, first thing in main, before anything uses the
// wheel; after that first use it returns ErrDefaultStarted and changes
// nothing.
//
// # Differences from package time
//
//   - cap(C) and len(C) are 1, not 0: the channel is buffered. Stop and
//     Reset still discard an undelivered value, so no stale value is ever
//     received.
//   - A timer fires up to its slack after its deadline (see Precision),
//     and delivers its value then, not at the moment a receiver looks. A
//     timer made or reset with d <= 0 delivers before the call returns (an
//     AfterFunc timer's f has started in its goroutine by then).
//   - GODEBUG=asynctimerchan=1 does not apply: the Go 1.23 semantics always
//     do.
//   - Timers made inside a testing/synctest bubble by the package-level
//     functions, or by the methods of a Wheel on the system clock
//     (Default's included), are package time's timers, so they run on the
//     bubble's fake clock. A Wheel on a ManualClock refuses to start a
//     timer there, with a panic: its timers run on its own clock.
//   - Misuse fails at the call where it would leave timers unfired:
//     Default().Close() returns ErrCloseDefault and the wheel runs on; a
//     closed Wheel panics on NewTimer, After, AfterFunc, NewTicker, Tick,
//     Sleep and Reset; NewWheel returns an error for a nil *ManualClock, a
//     Clock that reads negative, or a bucket width beyond math.MaxInt64.
//     Sleep(math.MaxInt64) blocks for good without a deadlock report, as
//     with package time, and AfterFunc(d, nil) is accepted and crashes the
//     program when it fires, with a panic ("stashtime: AfterFunc's f is
//     nil") where package time dies with "go of nil func value".
//   - The runtime's network poller opens its descriptors before the
//     wheel's; a process left without descriptors for these gets the
//     portable poller (see Wheel.Poller).
//   - The Time values sent carry the monotonic deadline, late by at most a
//     few nanoseconds, never early; their wall-clock part follows the
//     monotonic clock from the program's start rather than the wall clock's
//     later adjustments.
//   - The driver's goroutine shows up in goroutine dumps and leak checkers
//     while a timer is due within about 100 ms (see What runs when); the
//     runtime's timers leave no goroutine at all.
//   - *Timer and *Ticker are this package's own types, not package time's.
//   - An abandoned channel timer is collected later than package time
//     collects it (at the next collection): the wheel weakens its hold
//     after the first collection the timer survives pending, or, while most
//     timers outlive one, as the driver files it; the next collection frees
//     the channel and the one after the entry. With the program running
//     between collections, three free 10,000 abandoned After(time.Hour);
//     back to back, runtime.GC needs a fourth to sixth. An 8-byte slot stays
//     until a compaction. One armed within about 1 s of its deadline keeps
//     its channel until it fires, and one with less than about 0.27 s left
//     when weakened its entry.
//   - A ticker whose tick has waited unreceived while 16 more came due is
//     fired less often until the tick is taken: each firing that finds it
//     still waiting puts the next off to the last tick of a span that
//     doubles, from two periods up to about 134 ms (2^27 ns). The receiver
//     that then takes the waiting tick gets the next one, on phase, up to
//     about 134 ms later than from package time; one that takes each tick
//     before 16 more come due sees package time's ticks exactly.
//   - With no timer armed, the driver leaves within about 0.2 s (see What
//     runs when), so a deadlock is reported that much later than with
//     package time; while channel timers nobody receives from are pending,
//     only after they fire. A wheel on a ManualClock parks its driver on a
//     Go channel instead, as soon.
package stashtime
