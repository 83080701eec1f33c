package measure

import (
	"fmt"
	"testing"
	"time"
)

// QuietBest returns the shortest of the runs, with what f prints
// discarded.
func TestQuietBest(t *testing.T) {
	runs := 0
	best, err := QuietBest(3, func() {
		runs++
		fmt.Println("discarded")
		if runs == 2 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 3 || best >= 20*time.Millisecond {
		t.Fatalf("%d runs, best %v; want 3, the quick one under 20ms", runs, best)
	}
}
