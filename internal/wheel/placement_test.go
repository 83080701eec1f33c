package wheel

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/stash"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFileKey checks the placement table's store rows: a timer nearer than
// exactWithin is keyed by its deadline; a farther one one to two grains
// before it, on a multiple of a grain that is a power of two between an
// eighth and a quarter of the distance.
func TestFileKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	now := int64(1) << 40
	for range 10_000 {
		dist := rng.Int64N(1 << (10 + rng.IntN(40)))
		when := now + dist
		key := fileKey(now, when)
		if dist < exactWithin {
			if key != when {
				t.Fatalf("distance %v: key %d before the deadline, want the deadline", time.Duration(dist), when-key)
			}
			continue
		}
		g := when - key // one to two grains
		grain := int64(1) << (bits.Len64(uint64(dist)) - 3)
		if key%grain != 0 || g < grain || g >= 2*grain || grain*8 <= dist || grain*4 > dist {
			t.Fatalf("distance %v: key %d ns before the deadline on a grain of %d ns", time.Duration(dist), g, grain)
		}
	}
}

// fileKey at the edges: the deadline itself below exactWithin (or in the
// past), and from exactWithin on one to two grains before it, on a multiple
// of the grain counted from zero, not from now.
func TestFileKeyTable(t *testing.T) {
	const g = int64(1) << 28 // the grain of distances in [2^30, 2^31)
	for _, c := range []struct{ now, when, want int64 }{
		{0, 0, 0},
		{0, exactWithin - 1, exactWithin - 1},
		{100, 50, 50}, // already due
		{0, exactWithin, 3 * g},
		{0, exactWithin + 1, 3 * g},
		{0, 1<<31 - 1, 6 * g},
		{0, 1 << 31, 6 * g}, // grain 2^29
		{1000, 1000 + exactWithin, 3 * g},
		{0, 1 << 40, 1<<40 - 1<<38}, // grain 2^38: a quarter of the distance
	} {
		assert.Equal(t, c.want, fileKey(c.now, c.when), "fileKey(%d, %d)", c.now, c.when)
	}
}

// reachGrain is a power of two, a quarter of reach at a power of two, an
// eighth just below the next one, and 1 for the smallest.
func TestReachGrain(t *testing.T) {
	for _, c := range []struct{ reach, want int64 }{
		{0, 1}, {1, 1}, {7, 1}, {8, 2}, {15, 2}, {16, 4},
		{1 << 40, 1 << 38}, {1<<41 - 1, 1 << 38}, {math.MaxInt64, 1 << 60},
	} {
		assert.Equal(t, c.want, reachGrain(c.reach), "reachGrain(%d)", c.reach)
	}
}

// TestFileCapsAtReach checks the table's last row on a manual wheel: a
// timer due beyond reach is filed about reach ahead, on reach's grain, and
// one within reach at its key.
func TestFileCapsAtReach(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	now := clk.Now()
	for _, d := range []int64{int64(time.Hour), w.reach / 2, w.reach * 3, 1 << 62} {
		e := &Entry{w: w, kind: kindFunc}
		e.setFn(func() {})
		e.pending = true
		e.setWhen(now + d)
		e.mu.Lock()
		w.file(e, now)
		key := w.bucketStart(e.loc, now)
		e.mu.Unlock()
		want := w.bucketOf(fileKey(now, now+d))
		if d > w.reach {
			capKey := now + w.reach
			want = w.bucketOf(capKey - capKey%reachGrain(w.reach))
		}
		if e.holder != storeHolder || key != want {
			t.Errorf("d %v: holder %v in the bucket at %d, want store at %d", time.Duration(d), e.holder, key-now, want-now)
		}
		w.store.Remove(e.slot, e)
	}
}

// TestSoonerStaysInStore: a timer that the drain has filed in the store
// and whose deadline then moves sooner, far ahead, is filed in the store
// again, not listed in the intake; and a deadline that then moves sooner
// and later in turn (a read deadline pushed on every read) keeps that
// holder, where a listing would be filed at the later deadline and each
// move sooner would list it anew.
func TestSoonerStaysInStore(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	tm := w.AfterFunc(10*time.Second, func() {})
	defer tm.Stop()
	e := tm.e
	w.Sync() // the drain files it in the store
	holderOf := func() (holder, stash.Ref) {
		e.lock()
		defer e.unlock()
		return e.holder, e.slot
	}
	h, _ := holderOf()
	require.Equal(t, storeHolder, h, "after the drain")

	tm.Reset(5 * time.Second)
	h, slot := holderOf()
	require.Equal(t, storeHolder, h, "moved sooner, far ahead")
	for range 10 {
		tm.Reset(10 * time.Second)
		clk.Advance(20 * time.Millisecond)
		tm.Reset(5 * time.Second)
		h, s := holderOf()
		require.Equal(t, storeHolder, h)
		require.Equal(t, slot, s, "a move sooner that the holder still serves keeps it")
	}
}
