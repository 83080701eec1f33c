package clock

import (
	"testing"
	"time"
)

func TestTimeNowOutsideBubble(t *testing.T) {
	if !probeOK && sinceReadsBubbleByWall {
		t.Fatal("the probe failed its checks at initialization")
	}
	for range 1000 {
		before := Mono()
		got, ok := TimeNow()
		after := Mono()
		if !ok {
			t.Fatal("TimeNow reports a bubble outside one")
		}
		// Never early; late by at most the base pair's gap.
		if got < before || got > after+(pair.after-pair.before) {
			t.Fatalf("TimeNow = %d, outside [%d, %d+%d]", got, before, after, pair.after-pair.before)
		}
	}
}

func BenchmarkTimeNow(b *testing.B) {
	b.Run("src=TimeNow", func(b *testing.B) {
		for b.Loop() {
			TimeNow()
		}
	})
	b.Run("src=time.Now", func(b *testing.B) {
		for b.Loop() {
			t := time.Now()
			if t != t.Round(0) {
				FromTime(t)
			}
		}
	})
}
