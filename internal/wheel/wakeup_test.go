package wheel

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// addSat adds a non-negative b, saturating at math.MaxInt64.
func TestAddSat(t *testing.T) {
	const max = math.MaxInt64
	for _, c := range []struct{ a, b, want int64 }{
		{1, 2, 3},
		{-5, 3, -2},
		{0, max, max},
		{max, 0, max},
		{max - 1, 1, max},
		{max - 1, 2, max},
		{max, max, max},
		{math.MinInt64, max, -1},
	} {
		assert.Equal(t, c.want, addSat(c.a, c.b), "addSat(%d, %d)", c.a, c.b)
	}
}
