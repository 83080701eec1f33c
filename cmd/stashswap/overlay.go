package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stashgo/stash/internal/swap"
)

// runOverlay writes swapped copies of the files of the packages that
// patterns name (dependencies, usually) to the cache, and the overlay file
// that maps each original to its copy, for go build -overlay.
//
// The go command refuses an overlay that replaces a file in the module
// cache, where dependencies usually are. A module there is copied whole to
// the cache instead, its named packages swapped in the copy, and the overlay
// replaces the main module's go.mod with one that adds a replace directive
// for the copy. Packages elsewhere (a module replaced by a directory, a
// vendor directory) get an overlay entry per swapped file.
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
	env, err := c.goEnv("GOMODCACHE", "GOMOD", "GOWORK")
	if err != nil {
		return err
	}

	replace := map[string]string{}
	copies := map[listedModule]*moduleCopy{} // modules in the module cache
	var unreadable, total, swappedPkgs, swappedFiles int
	for _, p := range pkgs {
		var mc *moduleCopy
		if p.Module != nil && within(p.Module.Dir, env["GOMODCACHE"]) {
			mc = copies[*p.Module]
			if mc == nil {
				mc = &moduleCopy{mod: *p.Module, files: map[string][]byte{}}
				copies[*p.Module] = mc
			}
			mc.pkgs = append(mc.pkgs, p.ImportPath)
		}
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
				fmt.Fprintf(c.stderr, "stashswap: %s: cgo file: not swapped, it keeps its imports\n", f.path)
				continue
			}
			if mc != nil {
				rel, err := filepath.Rel(mc.mod.Dir, f.path)
				if err != nil {
					return err
				}
				mc.files[rel] = res.Src
			} else {
				copyPath, err := writeCopy(cache, filepath.Base(f.path), res.Src)
				if err != nil {
					return fmt.Errorf("-overlay: %w", err)
				}
				replace[f.path] = copyPath
			}
			imports += res.Swapped
			nfiles++
		}
		if imports > 0 {
			fmt.Fprintf(c.stdout, "swapped %s: %s in %s\n", p.ImportPath, plural(imports, "import"), plural(nfiles, "file"))
			total += imports
			swappedFiles += nfiles
			swappedPkgs++
		}
	}
	if unreadable > 0 {
		return fmt.Errorf("%s could not be read or parsed", plural(unreadable, "file"))
	}

	// The modules in the module cache: copies, and a go.mod that points
	// the main module at them.
	var edits []string
	for _, mc := range sortedCopies(copies) {
		if len(mc.files) == 0 {
			continue
		}
		dir, err := mc.write(cache, c.swaps)
		if err != nil {
			return fmt.Errorf("-overlay: copying %s@%s: %w", mc.mod.Path, mc.mod.Version, err)
		}
		fmt.Fprintf(c.stdout, "%s@%s is in the module cache, where no overlay may replace a file: copied to %s, with the packages above swapped\n",
			mc.mod.Path, mc.mod.Version, dir)
		edits = append(edits, "-replace="+mc.mod.Path+"@"+mc.mod.Version+"="+dir)
	}
	if len(edits) > 0 {
		gomod, err := c.overlaidGoMod(env, cache, edits)
		if err != nil {
			return err
		}
		replace[env["GOMOD"]] = gomod
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
			c.overlay, plural(total, "import"), plural(swappedFiles, "file"), plural(swappedPkgs, "package"), cache, c.overlay)
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

// overlaidGoMod writes, to the cache, the main module's go.mod with edits
// (go mod edit flags) applied, and returns its path.
func (c *command) overlaidGoMod(env map[string]string, cache string, edits []string) (string, error) {
	gomod := env["GOMOD"]
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("-overlay: %s is not in a module, and a dependency in the module cache can only be swapped through the main module's go.mod", c.dir)
	}
	if w := env["GOWORK"]; w != "" && w != "off" {
		return "", fmt.Errorf("-overlay: in workspace mode (%s), the replace directives would go in go.work: run stashswap and the build with GOWORK=off", w)
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "stashswap")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	edited := filepath.Join(tmp, "go.mod")
	if err := os.WriteFile(edited, data, 0o644); err != nil {
		return "", err
	}
	if _, err := c.goCmd(append(append([]string{"mod", "edit"}, edits...), edited)...); err != nil {
		return "", fmt.Errorf("-overlay: %w", err)
	}
	if data, err = os.ReadFile(edited); err != nil {
		return "", err
	}
	path, err := writeCopy(cache, "go.mod", data)
	if err != nil {
		return "", fmt.Errorf("-overlay: %w", err)
	}
	fmt.Fprintf(c.stdout, "%s: overlaid by %s, which adds the replace directives\n", c.rel(gomod), path)
	return path, nil
}

// goEnv returns the values of the go command's environment variables names.
func (c *command) goEnv(names ...string) (map[string]string, error) {
	out, err := c.goCmd(append([]string{"env", "-json"}, names...)...)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, fmt.Errorf("reading go env -json: %w", err)
	}
	return env, nil
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// A moduleCopy is a module in the module cache some of whose packages are
// swapped: files maps the path of each swapped file, relative to the
// module's directory, to its swapped contents.
type moduleCopy struct {
	mod   listedModule
	pkgs  []string
	files map[string][]byte
}

func sortedCopies(m map[listedModule]*moduleCopy) []*moduleCopy {
	var mcs []*moduleCopy
	for _, mc := range m {
		mcs = append(mcs, mc)
	}
	sort.Slice(mcs, func(i, j int) bool { return mcs[i].mod.Path < mcs[j].mod.Path })
	return mcs
}

// copyFormat changes when the way copies are made does, so that a cache
// written by an older stashswap is not reused.
const copyFormat = "stashswap copy 1"

// complete is the file written last in a module's copy.
const complete = ".stashswap-complete"

// write copies the module to a directory of the cache named by the module,
// its version and a hash of the swapped files, with the swapped files in
// place of the originals, unless that copy exists already, and returns the
// directory.
func (mc *moduleCopy) write(cache string, swaps map[string]string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s@%s\n", copyFormat, mc.mod.Path, mc.mod.Version)
	rels := make([]string, 0, len(mc.files))
	for rel := range mc.files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		sum := sha256.Sum256(mc.files[rel])
		fmt.Fprintf(h, "%s %x\n", rel, sum)
	}
	dir := filepath.Join(cache, "mod", filepath.FromSlash(mc.mod.Path)+"@"+mc.mod.Version+"-"+hex.EncodeToString(h.Sum(nil)[:6]))
	if _, err := os.Stat(filepath.Join(dir, complete)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // after a successful rename, there is nothing left
	err = filepath.WalkDir(mc.mod.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(mc.mod.Dir, path)
		if err != nil {
			return err
		}
		to := filepath.Join(tmp, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case !d.Type().IsRegular():
			return nil // the module cache holds regular files only
		}
		data, ok := mc.files[rel]
		if !ok {
			if data, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, complete), []byte(copyFormat+"\n"), 0o644)
	}
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, complete)); serr == nil {
			return dir, nil // another stashswap made the same copy meanwhile
		}
		return "", err
	}
	return dir, nil
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
