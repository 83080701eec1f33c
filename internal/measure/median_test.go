package measure

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{nan, 5}, 5},
	} {
		in := append([]float64(nil), c.in...)
		if got := Median(in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		if in[0] != c.in[0] && !math.IsNaN(c.in[0]) {
			t.Errorf("Median(%v) reordered its argument to %v", c.in, in)
		}
	}
	if got := Median([]float64{nan}); !math.IsNaN(got) {
		t.Errorf("Median(NaN) = %v, want NaN", got)
	}
}
