package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stashgo/stash/internal/swap"
)

// runOverlay writes swapped copies of the files of the packages that
// patterns name (dependencies, usually) to the cache, and the overlay file
// that maps each original to its copy, for go build -overlay.
func (c *command) runOverlay(patterns []string) error {
	pkgs, err := c.goList(patterns)
	if err != nil {
		return err
	}
	var std, refused []string
	for _, p := range pkgs {
		switch {
		case p.Standard:
			std = append(std, p.ImportPath)
		case p.Error != nil && len(files(p, true)) == 0:
			refused = append(refused, p.Error.Err)
		}
	}
	if len(std) > 0 {
		refused = append(refused, fmt.Sprintf("-overlay: %s: in the standard library, which cannot import a module such as %s, so its timers stay on the runtime's; leave it out",
			strings.Join(std, ", "), swap.Stash))
	}
	if len(refused) > 0 {
		return errors.New(strings.Join(refused, "\n\t"))
	}
	cache := c.cache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("-overlay: no cache directory (name one with -cache): %w", err)
		}
		cache = filepath.Join(dir, "stashswap")
	}
	cache = c.abs(cache)

	replace := map[string]string{}
	var unreadable, total, swappedPkgs int
	for _, p := range pkgs {
		imports, nfiles := 0, 0
		for _, f := range files(p, true) {
			src, err := os.ReadFile(f.path)
			if err != nil {
				fmt.Fprintln(c.stderr, "stashswap:", err)
				unreadable++
				continue
			}
			res, err := swap.File(f.path, src, c.swaps)
			if err != nil {
				fmt.Fprintln(c.stderr, "stashswap:", err)
				unreadable++
				continue
			}
			if res.Swapped == 0 {
				continue
			}
			if res.Cgo {
				fmt.Fprintf(c.stderr, "stashswap: %s: cgo file: not overlaid, it keeps its imports\n", f.path)
				continue
			}
			copyPath, err := writeCopy(cache, filepath.Base(f.path), res.Src)
			if err != nil {
				return fmt.Errorf("-overlay: %w", err)
			}
			replace[f.path] = copyPath
			imports += res.Swapped
			nfiles++
		}
		if imports > 0 {
			fmt.Fprintf(c.stdout, "swapped %s: %s in %s\n", p.ImportPath, plural(imports, "import"), plural(nfiles, "file"))
			total += imports
			swappedPkgs++
		}
	}
	if unreadable > 0 {
		return fmt.Errorf("%s could not be read or parsed", plural(unreadable, "file"))
	}
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.abs(c.overlay), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("-overlay: %w", err)
	}
	if total == 0 {
		fmt.Fprintf(c.stdout, "stashswap: wrote %s: nothing to swap, no file of these packages imports %s\n", c.overlay, c.pathsSwapped())
	} else {
		fmt.Fprintf(c.stdout, "stashswap: wrote %s: %s in %s of %s, copies in %s; build with: go build -overlay %s\n",
			c.overlay, plural(total, "import"), plural(len(replace), "file"), plural(swappedPkgs, "package"), cache, c.overlay)
	}
	// Nothing of the module imports stash's packages (but the copies): load
	// them alone, without their tests.
	var load []string
	for _, p := range []string{swap.Time, swap.Context} {
		if repl, ok := c.swaps[p]; ok {
			load = append(load, repl)
		}
	}
	return c.ensureRequire(c.stdout, false, load)
}

// writeCopy writes data, a swapped file named base, under cache at a path
// named by its contents (the same contents, the same path: a copy is never
// stale), unless it is there already, and returns that path.
func writeCopy(cache, base string, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	dir := filepath.Join(cache, hex.EncodeToString(sum[:8]))
	path := filepath.Join(dir, base)
	if have, err := os.ReadFile(path); err == nil && string(have) == string(data) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, base+".tmp*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return path, nil
}

// abs resolves path against c.dir.
func (c *command) abs(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(c.dir, path)
}
