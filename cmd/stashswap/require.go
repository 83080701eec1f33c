package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/stashgo/stash/internal/swap"
)

// ensureRequire makes the module that c.dir is in require stash, with go
// get, unless it does already (or is stash itself), and then loads the
// packages that load names (go list arguments) to complete go.mod and
// go.sum; with dryRun it only says what it would run.
func (c *command) ensureRequire(report io.Writer, dryRun bool, load []string) error {
	out, err := c.goCmd("env", "GOMOD")
	if err != nil {
		return err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return fmt.Errorf("%s is not in a module: stashswap needs one that can require %s", c.dir, swap.Stash)
	}
	out, err = c.goCmd("mod", "edit", "-json", gomod)
	if err != nil {
		return err
	}
	var mod struct {
		Module  struct{ Path string }
		Require []struct{ Path string }
		Replace []struct{ Old struct{ Path string } }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		return fmt.Errorf("reading go mod edit -json: %w", err)
	}
	if mod.Module.Path == swap.Stash {
		return nil
	}
	for _, r := range mod.Require {
		if r.Path == swap.Stash {
			return nil
		}
	}
	replaced := false
	for _, r := range mod.Replace {
		replaced = replaced || r.Old.Path == swap.Stash
	}
	target := swap.Stash + "@" + stashVersion(replaced)
	if dryRun {
		fmt.Fprintf(report, "stashswap: would run go get %s: %s does not require it\n", target, c.rel(gomod))
		return nil
	}
	if _, err := c.goCmd("get", target); err != nil {
		return fmt.Errorf("the imports are swapped, but adding the requirement failed: %w", err)
	}
	// go get of a module records neither the modules nor the sums of what
	// its packages import (golang.org/x/sys); loading the swapped packages
	// with -mod=mod does, so the module builds at once.
	if _, err := c.goCmd(append([]string{"list", "-mod=mod", "-deps"}, load...)...); err != nil {
		return fmt.Errorf("the imports are swapped and %s required, but loading the packages to record its dependencies failed (go mod tidy may): %w", swap.Stash, err)
	}
	fmt.Fprintf(report, "stashswap: go get %s: %s requires it now\n", target, c.rel(gomod))
	return nil
}

// stashVersion is the version of stash to require: the one this command
// was built from, when that is a release or pseudo-version; else v0.0.0
// when a replace directive provides stash (any version resolves to it), or
// the latest.
func stashVersion(replaced bool) string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == swap.Stash {
		v := bi.Main.Version
		if strings.HasPrefix(v, "v") && !strings.Contains(v, "+") {
			return v
		}
	}
	if replaced {
		return "v0.0.0"
	}
	return "latest"
}
