// Package swap rewrites the imports of a Go source file: each import of a
// chosen path (time, context) becomes an import of another path
// (stashtime, stashcontext) under the name the file used, so the code that
// uses the package is unchanged:
//
//	import "time"            ->  import time "github.com/stashgo/stash/stashtime"
//	import t "time"          ->  import t "github.com/stashgo/stash/stashtime"
//	import ( "fmt"; "time" ) ->  import ( "fmt"; time "github.com/stashgo/stash/stashtime" )
//
// Only each import's path (and the name it gets) is touched; the rest of the
// file, comments and layout included, is kept byte for byte, and no line is
// added or removed. An import whose line carries a comment containing
// "stashswap:keep" is left as it is.
//
// It is the rewriter of cmd/stashswap, which CI's .ci/modules.sh runs on
// public modules; File is the whole of it, and it touches no file system.
package swap
