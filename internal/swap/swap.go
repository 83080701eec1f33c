package swap

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// Stash is the module path of stash, whose packages the swapped imports
// name.
const Stash = "github.com/stashgo/stash"

// The import paths a swap replaces, and what replaces each.
const (
	Time    = "time"
	Context = "context"
)

// Replacements maps each path a swap may replace to its stash package.
var Replacements = map[string]string{
	Time:    Stash + "/stashtime",
	Context: Stash + "/stashcontext",
}

// KeepMark, in a comment on an import's line, keeps that import as it is.
const KeepMark = "stashswap:keep"

// An Import is one import of a path that a swap replaces.
type Import struct {
	Path string // the path imported: "time"
	Line int    // its line in the file, from 1
	Kept bool   // marked with KeepMark: left as it is
}

// A Result is what File found in a file and what it made of it.
type Result struct {
	// Src is the file with its imports swapped; it is the input itself
	// when there was nothing to swap.
	Src []byte
	// Swapped counts the imports rewritten in Src.
	Swapped int
	// Direct lists the imports of swapped paths in the input, in source
	// order, the ones marked with KeepMark included.
	Direct []Import
	// Generated reports a file marked "// Code generated ... DO NOT EDIT.",
	// and Cgo one that imports "C". File rewrites them too; whether to
	// write them is the caller's choice.
	Generated, Cgo bool
}

// File rewrites, in the Go source src of the file named filename, each
// import of a path that is a key of swaps to the path it maps to, under the
// same name: the last element of the old path if the import gave none.
// A syntax error in the imports is returned as an error, with its position.
func File(filename string, src []byte, swaps map[string]string) (*Result, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	res := &Result{Src: src, Generated: ast.IsGenerated(f)}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	kept := keptSpecs(f)
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fset.Position(spec.Path.Pos()), err)
		}
		if path == "C" {
			res.Cgo = true
		}
		repl, ok := swaps[path]
		if !ok {
			continue
		}
		imp := Import{Path: path, Line: fset.Position(spec.Path.Pos()).Line, Kept: kept[spec]}
		res.Direct = append(res.Direct, imp)
		if imp.Kept {
			continue
		}
		text := strconv.Quote(repl)
		if spec.Name == nil {
			// The package keeps the name it had: the last element of its path.
			text = path[strings.LastIndex(path, "/")+1:] + " " + text
		}
		edits = append(edits, edit{
			start: fset.Position(spec.Path.Pos()).Offset,
			end:   fset.Position(spec.Path.End()).Offset,
			text:  text,
		})
	}
	if len(edits) == 0 {
		return res, nil
	}
	var b strings.Builder
	last := 0
	for _, e := range edits { // f.Imports is in source order
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(src[last:])
	res.Src = []byte(b.String())
	res.Swapped = len(edits)
	return res, nil
}

// keptSpecs returns the import specs marked with KeepMark: in a comment
// on the spec's line, or just above it (above the import declaration, for
// an import without parentheses).
func keptSpecs(f *ast.File) map[*ast.ImportSpec]bool {
	kept := map[*ast.ImportSpec]bool{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, s := range gd.Specs {
			spec := s.(*ast.ImportSpec)
			groups := []*ast.CommentGroup{spec.Doc, spec.Comment}
			if !gd.Lparen.IsValid() {
				groups = append(groups, gd.Doc)
			}
			if hasMark(groups) {
				kept[spec] = true
			}
		}
	}
	return kept
}

// hasMark reports whether a comment of groups contains KeepMark. (It reads
// the comments' raw text: CommentGroup.Text drops "//name:arg" directives.)
func hasMark(groups []*ast.CommentGroup) bool {
	for _, g := range groups {
		if g == nil {
			continue
		}
		for _, c := range g.List {
			if strings.Contains(c.Text, KeepMark) {
				return true
			}
		}
	}
	return false
}
