// Package wheel is the engine behind package stashtime: where a pending
// timer waits, who fires it, and when the driver wakes.
//
// Its surface is small. New makes a Wheel from a Config; StartChan,
// StartFunc and StartTicker arm an Entry; an Entry's Stop, Reset,
// StopTicker and ResetTicker run the whole stop or arm protocol (lock,
// change, unlock, then notify or dropRestart), so no caller can skip the
// wake-up. SleepFor, Now, Sync, Settle, Counts and Close do the rest.
//
// # Invariants
//
// A timer fires exactly once per arming, never before its deadline, and at
// most its slack after it (precision.go). Every pending timer has exactly
// one live holder, which lies in a bucket at or before its deadline's: a
// slot in the store, an item in the near heap, or a listing in the intake.
// Whenever the driver sleeps, it is armed no later than the latest instant
// (deadline plus slack) of every pending timer (the wake-up rule,
// wakeup.go). Built with the stashcheck tag, a checker verifies the rule
// after each round and each producer call, and the entry's state table at
// every unlock (wakecheck.go).
//
// # Mechanisms
//
// Each mechanism below is listed with the bench row that shows what it
// buys; docs/measured.md, "What each mechanism buys", gives the figures
// and the commands.
//
//  1. The store (package internal/stash): a lock-free hierarchical slot
//     store in buckets of about 1 ms. Producers file with a few atomic
//     operations; one consumer walks the buckets in order. Rows:
//     afterfunc-stop, drain.
//  2. Placement (placement.go): a timer waits in the near heap within the
//     lookahead, in the store at its deadline, or, beyond about 1 s, in the
//     store one or two coarse grains early, to be re-filed closer by the
//     walk. Rows: memory, drain.
//  3. The intake (intake.go): each P's lists of timers not yet settled. A
//     far timer waits there for the next pass, and is usually stopped
//     before it touches the store; a near one goes from there straight to
//     the near heap. Rows: request, afterfunc chain.
//  4. Weakening (weakchan.go, intake.go): a channel timer armed far ahead
//     holds its channel weakly after it survives a collection, so an
//     abandoned one is collected. Test: TestAbandonedFreedByCollections.
//  5. The entry (entry.go): a timer's state under its own lock, and a
//     complemented deadline that lets Reset push an open entry later with
//     one CAS. Rows: reset-later, churn.
//  6. The near heap and the precision rule (heap.go, precision.go): timers
//     due within the lookahead, fired in deadline order, several per
//     wake-up when their slack allows. Tickers due again soon stay in it,
//     and one nobody receives from is fired less often (fire.go). Rows:
//     lateness, ticker.
//  7. The wake-up rule (wakeup.go): producers only lower the armed
//     instant, the consumer only raises it, to a bound it computes twice.
//     The bound may peep a sparse first bucket to sleep straight to its
//     first timer; a large bucket's backlog is read again maxAhead before
//     it, and a large one is pre-walked before it starts. Rows: burst,
//     lateness.
//  8. The driver and its batches (driver.go, consumer.go): one goroutine
//     walks and fires, holding the consumer role, in batches of MaxBatch,
//     and yields between them while its timers are on time. Rows: load,
//     saturated chain.
//  9. Leaving and coming back (wakeup.go): on the system clock the
//     driver's goroutine ends when nothing is due within 100 ms, and a
//     runtime timer or the next producer starts it again. Test:
//     TestDeadlockDetected.
//  10. Housekeeping (compact.go): cleaning what the walk passed, and
//     compacting the slots Stop and Reset emptied once they outnumber half
//     the live timers. Row: memory stopped.
//
// The poller's sleeps (keeping the P, giving it up, or a runtime timer when
// goroutines compute) are package poller's; rows: busy, load.
//
// # Lock order
//
// The consumer role (Wheel.consumer) or the intake's sweepMu, then an
// entry's mu, then an intake shard's mu. Producers take an entry's mu and
// then a shard's, and never the role. syncMu and the callbacks' mu are taken alone.
// An entry's dl changes without mu only by the CAS of resetLater, while
// the entry is open.
//
// # Tuning constants
//
//	name             value      why
//	DefaultSlack     2^19 ns    as late as the runtime's timers commonly fire under load
//	MaxSlack         2^20 ns    keeps the lookahead within half of intakeAhead
//	lookahead        derived    twice the distance whose slack reaches the cap (lookaheadFor)
//	intakeAhead      2^26 ns    far timers wait in the intake beyond it; most are stopped first
//	intakeWake       1024       a list this long wakes the driver, so a pass stays short
//	intakeCap        2^16       bounds a list that no pass drains
//	exactWithin      2^30 ns    nearer timers are filed at their deadline, farther ones early
//	weakBeyond       2^30 ns    channel timers armed this far ahead are worth a weak handle
//	watchBeyond      2^28 ns    timers this close when weakened keep their entry strong
//	tickerNear       2^27 ns    a ticker due again within it stays in the near heap
//	tickerIdle       16         unreceived ticks before a ticker backs off
//	tickerIdleMax    2^27 ns    the back-off's longest span
//	leaveBeyond      100 ms     the driver leaves when its next wake-up is this far
//	reviveLead       5 ms       more than the runtime's timers are commonly late
//	idleLeave        100 ms     within goleak's retries at the end of a test
//	maxSleep         1 s        bounds one sleep in the kernel
//	peepMax          64         buckets this sparse are peeped rather than walked early
//	walkCost         200 ns     a generous walk cost per holder, to start pre-walks in time
//	maxAhead         500 ms     the earliest a pre-walk starts, and when a backlog is read again
//	catchUpBeyond    1 ms       late by this, the driver fires the next batch without a yield
//	parkSpins        16         yields before the driver sleeps for a reserved slot
//	parkWait         20 µs      then its sleep
//	compactMin       4096       emptied slots below this are not worth a compaction
//	holeBatch        64         emptied slots a P counts before it writes the shared count
//	sweepSample      16         one in this many channel timers samples a collection
//	eagerSample      8          while eager, one in this many waits for the sweep
//	eagerMax         128        weakenings a drain makes at most (about 100 µs)
//	maxSpare         4096       the longest toWeaken list kept for reuse
package wheel
