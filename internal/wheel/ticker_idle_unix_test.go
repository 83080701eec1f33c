//go:build unix

package wheel

import (
	"testing"
	"time"

	"github.com/stashgo/stash/internal/measure"
)

// BenchmarkUnreadTickersCPU: the process CPU that 1000 NewTicker(1ms) that
// nobody receives from cost over 3 s, beside package time's (which costs
// nothing for them: its channel timer is in the runtime's heap only while a
// goroutine blocks on the channel). The backoff of fire's ticker case (see
// tickerIdle in fire.go) is what keeps stash's small.
//
//	go test -run '^$' -bench BenchmarkUnreadTickersCPU -benchtime 1x ./stashtime/
func BenchmarkUnreadTickersCPU(b *testing.B) {
	cpu := func() time.Duration {
		c, err := measure.ProcessCPU()
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	const n, span = 1000, 3 * time.Second
	for _, impl := range []string{"time", "stash"} {
		b.Run("impl="+impl, func(b *testing.B) {
			var used time.Duration
			for range b.N {
				var stops []func()
				c0 := cpu()
				for range n {
					if impl == "time" {
						stops = append(stops, time.NewTicker(time.Millisecond).Stop)
					} else {
						stops = append(stops, NewTicker(time.Millisecond).Stop)
					}
				}
				time.Sleep(span)
				used += cpu() - c0
				for _, stop := range stops {
					stop()
				}
			}
			b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/3s")
		})
	}
}
