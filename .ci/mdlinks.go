//go:build ignore

// Mdlinks checks that every relative link in README.md, CHANGELOG.md and
// docs/*.md points to a file that exists and, where it names one, to a
// heading of that file (GitHub's anchors). Run it from the repository
// root:
//
//	go run .ci/mdlinks.go
//
// It prints each broken link and exits 1 if there is any. Links with a
// scheme (https:, mailto:) are not checked.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

var (
	// link matches [text](target) and ![alt](target), target without spaces.
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	fence   = regexp.MustCompile("^\\s*(```|~~~)")
	scheme  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

func main() {
	files := []string{"README.md", "CHANGELOG.md"}
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mdlinks:", err)
		os.Exit(2)
	}
	files = append(files, docs...)
	bad := 0
	for _, f := range files {
		bad += check(f)
	}
	if bad > 0 {
		fmt.Printf("mdlinks: %d broken links\n", bad)
		os.Exit(1)
	}
	fmt.Printf("mdlinks: every relative link in %d files resolves\n", len(files))
}

// check reports the broken links of file f and returns how many there are.
func check(f string) int {
	lines, err := readLines(f)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	bad := 0
	inFence := false
	for i, line := range lines {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(stripCode(line), -1) {
			target := m[1]
			if scheme.MatchString(target) {
				continue
			}
			if msg := resolve(f, target); msg != "" {
				fmt.Printf("%s:%d: %s: %s\n", f, i+1, target, msg)
				bad++
			}
		}
	}
	return bad
}

// resolve returns why target, linked from file from, does not resolve, or "".
func resolve(from, target string) string {
	path, anchor, _ := strings.Cut(target, "#")
	dest := from
	if path != "" {
		dest = filepath.Join(filepath.Dir(from), filepath.FromSlash(path))
		if _, err := os.Stat(dest); err != nil {
			return "no such file"
		}
	}
	if anchor == "" {
		return ""
	}
	if !strings.HasSuffix(dest, ".md") {
		return "anchor in a file that is not Markdown"
	}
	lines, err := readLines(dest)
	if err != nil {
		return err.Error()
	}
	if !anchors(lines)[anchor] {
		return "no heading with that anchor in " + dest
	}
	return ""
}

// anchors returns the anchors GitHub gives the headings of a Markdown file.
func anchors(lines []string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	inFence := false
	for _, line := range lines {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// slug is GitHub's anchor for a heading's text: lower case, markup and
// punctuation dropped, spaces turned into hyphens.
func slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// stripCode blanks out inline code spans, whose brackets are not links.
func stripCode(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = ""
	}
	return strings.Join(parts, "`")
}

func readLines(f string) ([]string, error) {
	b, err := os.ReadFile(f)
	if err != nil {
		return nil, err
	}
	return strings.Split(string(b), "\n"), nil
}
