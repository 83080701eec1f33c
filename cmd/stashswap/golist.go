package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// listedPackage is what stashswap reads of a package from go list -json.
type listedPackage struct {
	ImportPath     string
	Dir            string
	Standard       bool
	Module         *listedModule
	GoFiles        []string
	CgoFiles       []string
	TestGoFiles    []string
	XTestGoFiles   []string
	IgnoredGoFiles []string // excluded by build constraints
	Error          *struct{ Err string }
}

// listedModule is what stashswap reads of a package's module.
type listedModule struct {
	Path    string
	Version string
	Main    bool
	Dir     string
}

// listFields are the fields of go list -json that listedPackage reads.
const listFields = "ImportPath,Dir,Standard,Module,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,IgnoredGoFiles,Error"

// goList resolves the package patterns, in the module of dir, with go list.
func (c *command) goList(patterns []string) ([]*listedPackage, error) {
	args := []string{"list", "-e", "-json=" + listFields}
	if c.tags != "" {
		args = append(args, "-tags="+c.tags)
	}
	args = append(args, patterns...)
	out, err := c.goCmd(args...)
	if err != nil {
		return nil, err
	}
	var pkgs []*listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(listedPackage)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list -json: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	return pkgs, nil
}

// goCmd runs the go command in c.dir and returns its standard output; its
// standard error is in the error.
func (c *command) goCmd(args ...string) ([]byte, error) {
	cmd := exec.CommandContext(context.Background(), "go", args...)
	cmd.Dir = c.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
