package stash

import "fmt"

// An Op names a step of the store for tracing.
type Op uint8

// The traced steps.
const (
	OpAdd      Op = iota // a value entered a leaf
	OpLate               // an Add below FirstValid lowered it
	OpOverflow           // a value went to the overflow area
	OpDrain              // the overflow area was drained into the tree
	OpWalk               // the walk returned (and consumed) a value
	OpPeep               // the peep returned a value
	OpPending            // the walk met a reserved, unfilled slot
	OpClean              // Clean detached a subtree
	OpSalvage            // Clean re-added a value left in a detached subtree
	OpRetry              // a producer found its subtree detached and added again
)

var opNames = [...]string{"add", "late", "overflow", "drain", "walk", "peep", "pending", "clean", "salvage", "retry"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// An Event is one traced step: what happened, at which key (a bucket's first
// key for leaf steps) and, for Clean, at which level.
type Event struct {
	Op    Op
	Key   uint64
	Level int
}

func (e Event) String() string {
	return fmt.Sprintf("%-8s key=%d level=%d", e.Op, e.Key, e.Level)
}

func (s *Store[T]) emit(op Op, key uint64, level int) {
	s.trace(Event{Op: op, Key: key, Level: level})
}
