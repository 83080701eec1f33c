package swap

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from File's output")

var (
	timeOnly = map[string]string{Time: Replacements[Time]}
	both     = Replacements
)

// TestFile runs File on each testdata/NAME.input and compares its output
// with testdata/NAME.golden (go test ./internal/swap -update rewrites them).
func TestFile(t *testing.T) {
	for _, tc := range []struct {
		name           string
		swaps          map[string]string
		swapped        int
		direct         []Import
		generated, cgo bool
	}{
		{name: "single", swaps: timeOnly, swapped: 1, direct: []Import{{Time, 3, false}}},
		{name: "block", swaps: timeOnly, swapped: 1, direct: []Import{{Time, 6, false}}},
		{name: "aliased", swaps: timeOnly, swapped: 3, direct: []Import{{Time, 4, false}, {Time, 5, false}, {Time, 8, false}}},
		{name: "dot", swaps: timeOnly, swapped: 1, direct: []Import{{Time, 3, false}}},
		{name: "blank", swaps: timeOnly, swapped: 1, direct: []Import{{Time, 4, false}}},
		{name: "comments", swaps: timeOnly, swapped: 2, direct: []Import{{Time, 9, false}, {Time, 13, false}}},
		{name: "buildtags", swaps: timeOnly, swapped: 1, direct: []Import{{Time, 8, false}}},
		{name: "duration", swaps: timeOnly, swapped: 1, direct: []Import{{Time, 5, false}}},
		{name: "context", swaps: both, swapped: 2, direct: []Import{{Context, 4, false}, {Time, 6, false}}},
		{name: "keep", swaps: timeOnly, swapped: 0, direct: []Import{{Time, 5, true}, {Time, 9, true}}},
		{name: "generated", swaps: timeOnly, swapped: 1, direct: []Import{{Time, 5, false}}, generated: true},
		{name: "cgo", swaps: timeOnly, swapped: 1, direct: []Import{{Time, 8, false}}, cgo: true},
		{name: "swapped", swaps: both, swapped: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tc.name+".input"))
			require.NoError(t, err)
			res, err := File(tc.name+".go", in, tc.swaps)
			require.NoError(t, err)
			assert.Equal(t, tc.swapped, res.Swapped, "imports swapped")
			assert.Equal(t, tc.direct, res.Direct, "direct imports")
			assert.Equal(t, tc.generated, res.Generated, "generated")
			assert.Equal(t, tc.cgo, res.Cgo, "cgo")

			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, res.Src, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(res.Src), "output differs from %s (go test -update rewrites it)", golden)

			// Lines are rewritten, never added or removed.
			assert.Equal(t, bytes.Count(in, []byte("\n")), bytes.Count(res.Src, []byte("\n")), "lines")
			if res.Swapped == 0 {
				assert.Equal(t, in, res.Src, "nothing swapped, yet the source changed")
			}

			// A second run changes nothing, and finds only kept imports.
			again, err := File(tc.name+".go", res.Src, tc.swaps)
			require.NoError(t, err)
			assert.Zero(t, again.Swapped, "a second run swapped imports")
			assert.Equal(t, string(res.Src), string(again.Src), "a second run changed the source")
			for _, imp := range again.Direct {
				assert.True(t, imp.Kept, "line %d still imports %q", imp.Line, imp.Path)
			}
		})
	}
}

func TestFileSyntaxError(t *testing.T) {
	_, err := File("broken.go", []byte("package broken\n\nimport \"time\n"), timeOnly)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "broken.go:3")
}

// TestFileContextOnly: with context alone swapped, time stays.
func TestFileContextOnly(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "context.input"))
	require.NoError(t, err)
	res, err := File("context.go", in, map[string]string{Context: Replacements[Context]})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Swapped)
	assert.Contains(t, string(res.Src), "\tcontext \"github.com/stashgo/stash/stashcontext\"\n")
	assert.Contains(t, string(res.Src), "\t\"time\"\n")
}
