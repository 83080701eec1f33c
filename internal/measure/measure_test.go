package measure

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "0"},
		{1, "1"},
		{999, "999"},
		{1000, "1k"},
		{1500, "1500"},
		{10_000, "10k"},
		{999_000, "999k"},
		{1_000_000, "1M"},
		{1_500_000, "1500k"},
		{1_000_001, "1000001"},
		{-1000, "-1000"},
	} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
