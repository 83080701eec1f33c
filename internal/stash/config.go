package stash

import (
	"errors"
	"fmt"
)

// A Level is one level of a Store: key k maps to slot (k / Div) % Mod, and
// the level's slot array is allocated Chunk slots at a time.
type Level struct {
	Div   uint64
	Mod   uint64
	Chunk int
}

// Config configures a Store.
type Config struct {
	// Levels, coarsest first. Each level's Div*Mod must equal the Div of the
	// level before it. The last level's Div is the bucket width.
	Levels []Level
	// LeafChunk is the number of slots of a leaf's first segment (default
	// 4); each later segment doubles, up to 61 slots (or LeafChunk, if
	// that is more): 61 and a segment's header fill 512 bytes.
	LeafChunk int
	// HorizonMargin reserves a keep-out zone at the far end of the span:
	// keys within HorizonMargin of FirstValid+Span wait in the overflow area
	// instead of entering the tree. It must not exceed the span less
	// Levels[0].Div.
	HorizonMargin uint64
	// Trace, if not nil, receives an Event for every structural step. Leave
	// it nil in production: then tracing costs one nil check per step.
	Trace func(Event)
}

// DefaultLevels returns the geometry the timer wheel uses for nanosecond
// keys: four levels of 512 slots over buckets of 2^20 ns (about 1 ms), a
// span of 2^56 ns (about 2.28 years).
//
// Four wide levels rather than six of 64 (the same span and buckets): every
// Add descends through each level, and two fewer dependent loads per Add
// showed in BenchmarkAdd, BenchmarkWalk and BenchmarkPeep. A node of 512
// slots costs about 300 bytes more than one of 64 (its slots are still
// allocated 16 at a time), but a path has two nodes fewer: the sparse case
// of BenchmarkBytesPerValue went from 305 to 279 bytes a value.
func DefaultLevels() []Level {
	levels := make([]Level, 4)
	for i := range levels {
		levels[i] = Level{Div: 1 << (47 - 9*i), Mod: 512, Chunk: 16}
	}
	return levels
}

var (
	errNoLevels = errors.New("stash: config has no levels")
	errTooDeep  = errors.New("stash: config has more than 16 levels")
)

func (c *Config) validate() error {
	if len(c.Levels) == 0 {
		return errNoLevels
	}
	for i, l := range c.Levels {
		if l.Div == 0 {
			return fmt.Errorf("stash: level %d: Div is zero", i)
		}
		if l.Mod == 0 {
			return fmt.Errorf("stash: level %d: Mod is zero", i)
		}
		if l.Chunk <= 0 {
			return fmt.Errorf("stash: level %d: Chunk must be positive, got %d", i, l.Chunk)
		}
		if l.Div > ^uint64(0)/l.Mod {
			return fmt.Errorf("stash: level %d: Div*Mod overflows uint64", i)
		}
		if i > 0 && l.Div*l.Mod != c.Levels[i-1].Div {
			return fmt.Errorf("stash: level %d: Div*Mod = %d, want the Div of level %d (%d)",
				i, l.Div*l.Mod, i-1, c.Levels[i-1].Div)
		}
	}
	if c.LeafChunk < 0 {
		return fmt.Errorf("stash: LeafChunk must not be negative, got %d", c.LeafChunk)
	}
	// The tree takes keys below the first key of FirstValid's top-level
	// slot plus span minus margin; a margin above span minus one top-level
	// slot would leave keys that could never enter it.
	if span, top := c.Levels[0].Div*c.Levels[0].Mod, c.Levels[0].Div; c.HorizonMargin > span-top {
		return fmt.Errorf("stash: HorizonMargin %d is above the span %d less one top-level slot (%d)",
			c.HorizonMargin, span, top)
	}
	return nil
}
