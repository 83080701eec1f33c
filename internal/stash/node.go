package stash

import (
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// A node is one level's slot array for the keys [base, base+span of the
// level). Its children are nodes of the next level or, at the last level,
// leaves. mask has bit i set while slot i may hold a child, and the walk
// skips a slot whose bit is clear. Clean clears a bit before it detaches the
// child; every producer that descends through a slot, not only the one that
// published its child, sets the bit before it goes on. So no value is ever
// stored under a clear bit while its path is attached: the producer that
// published a child may be preempted before it marks it, and another
// producer's value below it would otherwise be invisible to the walk.
//
// The first mask word sits in the node itself, so a descent to one of the
// first 64 slots reads it from the line it reads base from.
type node struct {
	base  uint64
	mask0 atomic.Uint64   // bits of slots 0-63
	mask  []atomic.Uint64 // bits of slots 64 and up, 64 a word
	kids  slots
}

func newNode(base uint64, l Level) *node {
	n := &node{base: base, kids: makeSlots(int(l.Mod), l.Chunk)}
	if l.Mod > 64 {
		n.mask = make([]atomic.Uint64, (l.Mod-1)/64)
	}
	return n
}

// word returns the mask word holding slot i's bit.
func (n *node) word(i uint64) *atomic.Uint64 {
	if i < 64 {
		return &n.mask0
	}
	return &n.mask[i/64-1]
}

func (n *node) mark(i uint64)        { n.word(i).Or(1 << (i % 64)) }
func (n *node) marked(i uint64) bool { return n.word(i).Load()&(1<<(i%64)) != 0 }
func (n *node) unmark(i uint64)      { n.word(i).And(^(1 << (i % 64))) }

// next returns the first slot at or after i whose bit is set, or mod.
func (n *node) next(i, mod uint64) uint64 {
	for i < mod {
		w := n.word(i).Load() >> (i % 64)
		if w != 0 {
			i += uint64(bits.TrailingZeros64(w))
			if i >= mod {
				return mod
			}
			return i
		}
		i = (i/64 + 1) * 64
	}
	return mod
}

// child returns slot i's child, or nil.
func (n *node) child(i uint64, l Level) unsafe.Pointer {
	p := n.kids.at(int(i), l.Chunk, false)
	if p == nil {
		return nil
	}
	return atomic.LoadPointer(p)
}

// baseOf returns the first key of a child at the given depth (a leaf if
// depth is the number of levels).
func baseOf(c unsafe.Pointer, leafDepth bool) uint64 {
	if leafDepth {
		return (*leaf)(c).base
	}
	return (*node)(c).base
}
