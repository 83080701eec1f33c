package stashtime_test

import (
	"errors"
	"fmt"
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"os"
	"testing"
	stdtime "time"

	// The swap under test: this file uses stashtime exactly as a program
	// that changed only its import line would.
	time "github.com/stashgo/stash/stashtime"
)

const stashPath = "github.com/stashgo/stash/stashtime"

// timerTypes are the exported types of package time that stashtime defines
// itself rather than aliasing. Their API must match time's, modulo the
// substitution time.X -> stashtime.X.
var timerTypes = map[string]bool{"Timer": true, "Ticker": true}

// loadPackages type-checks the toolchain's time package and this package from
// source with a single importer, so that both see the same *types.Package for
// "time" and types.Identical works across them. It needs nothing but the Go
// toolchain (GOROOT sources and the go command, which go/build runs to locate
// the module package).
func loadPackages(t *testing.T) (std, stash *types.Package) {
	t.Helper()
	dir, err := os.Getwd() // the package directory, under go test
	if err != nil {
		t.Fatal(err)
	}
	imp, ok := importer.ForCompiler(token.NewFileSet(), "source", nil).(types.ImporterFrom)
	if !ok {
		t.Fatal("source importer does not implement types.ImporterFrom")
	}
	std, err = imp.ImportFrom("time", dir, 0)
	if err != nil {
		t.Fatalf("importing time from source: %v", err)
	}
	stash, err = imp.ImportFrom(stashPath, dir, 0)
	if err != nil {
		t.Fatalf("importing %s from source: %v", stashPath, err)
	}
	if stash.Path() != stashPath {
		t.Fatalf("imported %q, want %q", stash.Path(), stashPath)
	}
	return std, stash
}

// TestReexportComplete checks that every exported name of the toolchain's
// time package exists in stashtime with the same kind and type (and, for
// constants, the same value), so that `import time ".../stashtime"` keeps
// compiling when a Go release adds to package time.
func TestReexportComplete(t *testing.T) {
	std, stash := loadPackages(t)

	// subst maps time's timer types to ours, for comparing signatures such
	// as NewTimer's that mention them.
	subst := map[*types.TypeName]*types.TypeName{}
	for name := range timerTypes {
		from, _ := std.Scope().Lookup(name).(*types.TypeName)
		to, _ := stash.Scope().Lookup(name).(*types.TypeName)
		if from != nil && to != nil {
			subst[from] = to
		}
	}

	checked := 0
	for _, name := range std.Scope().Names() {
		obj := std.Scope().Lookup(name)
		if !obj.Exported() {
			continue
		}
		checked++
		got := stash.Scope().Lookup(name)
		if got == nil {
			t.Errorf("%s: time.%s (%s) is not re-exported", name, name, kind(obj))
			continue
		}
		if kind(got) != kind(obj) {
			t.Errorf("%s: is a %s in stashtime, a %s in time", name, kind(got), kind(obj))
			continue
		}
		switch obj := obj.(type) {
		case *types.TypeName:
			got := got.(*types.TypeName)
			if timerTypes[name] {
				checkTimerType(t, obj, got, subst)
				continue
			}
			if !got.IsAlias() {
				t.Errorf("%s: must be an alias (type %s = time.%s), is a defined type", name, name, name)
			}
			if !types.Identical(got.Type(), obj.Type()) {
				t.Errorf("%s: type %s, want time.%s", name, got.Type(), name)
			}
		case *types.Const:
			got := got.(*types.Const)
			if !types.Identical(got.Type(), obj.Type()) {
				t.Errorf("%s: constant of type %s, want %s", name, got.Type(), obj.Type())
			}
			if !constant.Compare(got.Val(), token.EQL, obj.Val()) {
				t.Errorf("%s: value %s, want %s", name, got.Val(), obj.Val())
			}
		case *types.Var:
			if !types.Identical(got.Type(), obj.Type()) {
				t.Errorf("%s: variable of type %s, want %s", name, got.Type(), obj.Type())
			}
		case *types.Func:
			if !identicalModulo(got.Type(), obj.Type(), subst) {
				t.Errorf("%s: signature %s, want %s", name, got.Type(), obj.Type())
			}
		default:
			t.Errorf("%s: unexpected object kind %T in package time", name, obj)
		}
	}
	if checked < 70 { // Go 1.24 exports 73 names; guard against a broken load
		t.Errorf("only %d exported names found in package time; importer problem?", checked)
	}

	var extra []string
	for _, name := range stash.Scope().Names() {
		if token.IsExported(name) && std.Scope().Lookup(name) == nil {
			extra = append(extra, name)
		}
	}
	t.Logf("checked %d names of time; stashtime also exports %v", checked, extra)
}

// checkTimerType checks our Timer or Ticker against time's: every exported
// field of time's struct (C <-chan Time) exists with an identical type, and
// every method of *time.X exists on *stashtime.X with the same signature.
func checkTimerType(t *testing.T, std, stash *types.TypeName, subst map[*types.TypeName]*types.TypeName) {
	t.Helper()
	name := std.Name()
	st, ok := stash.Type().Underlying().(*types.Struct)
	if !ok {
		t.Errorf("%s: underlying type %s, want a struct", name, stash.Type().Underlying())
		return
	}
	fields := map[string]*types.Var{}
	for i := 0; i < st.NumFields(); i++ {
		fields[st.Field(i).Name()] = st.Field(i)
	}

	// Spelled out, since it is the one field users touch: C <-chan Time.
	timeType := std.Pkg().Scope().Lookup("Time").Type()
	wantC := types.NewChan(types.RecvOnly, timeType)
	if c := fields["C"]; c == nil || !c.Exported() || c.Embedded() || !types.Identical(c.Type(), wantC) {
		t.Errorf("%s: want exported field C %s, have %v", name, wantC, c)
	}
	// And whatever else time's struct exports.
	for i, stdSt := 0, std.Type().Underlying().(*types.Struct); i < stdSt.NumFields(); i++ {
		f := stdSt.Field(i)
		if !f.Exported() {
			continue
		}
		if g := fields[f.Name()]; g == nil || !g.Exported() || !identicalModulo(g.Type(), f.Type(), subst) {
			t.Errorf("%s: want field %s %s, have %v", name, f.Name(), f.Type(), g)
		}
	}

	stdMethods := types.NewMethodSet(types.NewPointer(std.Type()))
	stashMethods := types.NewMethodSet(types.NewPointer(stash.Type()))
	for i := 0; i < stdMethods.Len(); i++ {
		m := stdMethods.At(i).Obj()
		if !m.Exported() {
			continue
		}
		sel := stashMethods.Lookup(m.Pkg(), m.Name()) // exported: package is irrelevant
		if sel == nil {
			t.Errorf("%s: method (*%s).%s missing", name, name, m.Name())
			continue
		}
		if !identicalModulo(sel.Obj().Type(), m.Type(), subst) {
			t.Errorf("%s: method %s has signature %s, want %s", name, m.Name(), sel.Obj().Type(), m.Type())
		}
	}
	for _, m := range []string{"Stop", "Reset"} { // explicitly, in case time's set shrinks
		if stashMethods.Lookup(nil, m) == nil {
			t.Errorf("%s: method (*%s).%s missing", name, name, m)
		}
	}
}

// identicalModulo reports whether got is identical to want after replacing,
// in want, each named type in subst by its image. It handles the type
// constructors that occur in time's API (signatures, pointers, channels,
// slices, maps); anything else must be types.Identical.
func identicalModulo(got, want types.Type, subst map[*types.TypeName]*types.TypeName) bool {
	if types.Identical(got, want) {
		return true
	}
	switch w := want.(type) {
	case *types.Named:
		g, ok := got.(*types.Named)
		return ok && subst[w.Obj()] != nil && subst[w.Obj()] == g.Obj()
	case *types.Pointer:
		g, ok := got.(*types.Pointer)
		return ok && identicalModulo(g.Elem(), w.Elem(), subst)
	case *types.Chan:
		g, ok := got.(*types.Chan)
		return ok && g.Dir() == w.Dir() && identicalModulo(g.Elem(), w.Elem(), subst)
	case *types.Slice:
		g, ok := got.(*types.Slice)
		return ok && identicalModulo(g.Elem(), w.Elem(), subst)
	case *types.Map:
		g, ok := got.(*types.Map)
		return ok && identicalModulo(g.Key(), w.Key(), subst) && identicalModulo(g.Elem(), w.Elem(), subst)
	case *types.Signature:
		g, ok := got.(*types.Signature)
		if !ok || g.Variadic() != w.Variadic() || g.TypeParams().Len() != 0 || w.TypeParams().Len() != 0 {
			return false
		}
		return identicalTuple(g.Params(), w.Params(), subst) && identicalTuple(g.Results(), w.Results(), subst)
	}
	return false
}

func identicalTuple(got, want *types.Tuple, subst map[*types.TypeName]*types.TypeName) bool {
	if got.Len() != want.Len() {
		return false
	}
	for i := 0; i < got.Len(); i++ {
		if !identicalModulo(got.At(i).Type(), want.At(i).Type(), subst) {
			return false
		}
	}
	return true
}

func kind(obj types.Object) string {
	switch obj.(type) {
	case *types.TypeName:
		return "type"
	case *types.Const:
		return "const"
	case *types.Var:
		return "var"
	case *types.Func:
		return "func"
	}
	return fmt.Sprintf("%T", obj)
}

// The rest of this file is the compile-level check: code written against
// package time, with only the import line changed, must compile and behave
// the same. Values cross freely between the two packages because the
// re-exported types are aliases.
var (
	_ stdtime.Time      = time.Time{}
	_ stdtime.Duration  = time.Second
	_ stdtime.Month     = time.December
	_ stdtime.Weekday   = time.Saturday
	_ *stdtime.Location = time.UTC
	_ error             = (*time.ParseError)(nil)
	_ string            = time.RFC3339Nano

	_ func() time.Time                                        = time.Now
	_ func(string, []byte) (*time.Location, error)            = time.LoadLocationFromTZData
	_ func(time.Duration) *time.Timer                         = time.NewTimer
	_ func(time.Duration, func()) *time.Timer                 = time.AfterFunc
	_ func(time.Duration) <-chan time.Time                    = time.After
	_ func(time.Duration) *time.Ticker                        = time.NewTicker
	_ func(time.Duration) <-chan time.Time                    = time.Tick
	_ func(time.Duration)                                     = time.Sleep
	_ func(string, string, *time.Location) (time.Time, error) = time.ParseInLocation
)

func TestSwapCompiles(t *testing.T) {
	// Durations: arithmetic, formatting and parsing.
	d := 90 * time.Minute
	if got := d.String(); got != "1h30m0s" {
		t.Errorf("(90 * Minute).String() = %q", got)
	}
	if p, err := time.ParseDuration("1h30m"); err != nil || p != d {
		t.Errorf("ParseDuration(1h30m) = %v, %v; want %v", p, err, d)
	}
	if got := (1500 * time.Millisecond).Seconds(); got != 1.5 {
		t.Errorf("1500ms = %vs", got)
	}

	// Dates, layouts, months, weekdays and locations.
	date := time.Date(2009, time.November, 10, 23, 0, 0, 0, time.UTC)
	if got := date.Format(time.RFC3339); got != "2009-11-10T23:00:00Z" {
		t.Errorf("Format(RFC3339) = %q", got)
	}
	if date.Weekday() != time.Tuesday || date.Month() != time.November {
		t.Errorf("%v is a %v in %v", date, date.Weekday(), date.Month())
	}
	if p, err := time.Parse(time.DateTime, "2009-11-10 23:00:00"); err != nil || !p.Equal(date) {
		t.Errorf("Parse(DateTime) = %v, %v; want %v", p, err, date)
	}
	east := time.FixedZone("EAST", 3600)
	if p, err := time.ParseInLocation(time.DateOnly, "2009-11-11", east); err != nil || !p.Equal(date) {
		t.Errorf("ParseInLocation(DateOnly, EAST) = %v, %v; want %v", p, err, date)
	}
	_, err := time.Parse(time.Kitchen, "25:99")
	var pe *time.ParseError
	if !errors.As(err, &pe) {
		t.Errorf("Parse(Kitchen, 25:99): error %v is not a *ParseError", err)
	}
	if loc, err := time.LoadLocation("UTC"); err != nil || loc != time.UTC {
		t.Errorf("LoadLocation(UTC) = %v, %v", loc, err)
	}
	if time.UTC != stdtime.UTC || time.Local != stdtime.Local {
		t.Error("UTC/Local are not time's pointers")
	}

	// Unix conversions agree with package time.
	for _, c := range []struct{ got, want time.Time }{
		{time.Unix(1257894000, 5), stdtime.Unix(1257894000, 5)},
		{time.UnixMilli(1257894000123), stdtime.UnixMilli(1257894000123)},
		{time.UnixMicro(1257894000123456), stdtime.UnixMicro(1257894000123456)},
	} {
		if !c.got.Equal(c.want) {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}

	// Now/Since/Until with the timer API, whichever implementation is behind it.
	start := time.Now()
	select {
	case <-time.After(time.Millisecond):
	case <-stdtime.After(10 * stdtime.Second):
		t.Fatal("After(1ms) did not fire within 10s")
	}
	if e := time.Since(start); e < time.Millisecond {
		t.Errorf("After(1ms) fired after only %v", e)
	}
	if u := time.Until(start); u > 0 {
		t.Errorf("Until(past) = %v, want <= 0", u)
	}
	tm := time.NewTimer(time.Hour)
	if !tm.Stop() {
		t.Error("Stop on a pending Timer returned false")
	}
	tk := time.NewTicker(time.Millisecond)
	<-tk.C
	tk.Stop()
}
