package stashtime

import "errors"

// ErrDefaultStarted is returned by SetDefaultOptions once the process-wide
// wheel has started.
var ErrDefaultStarted = errors.New("stashtime: the process-wide wheel has already started; SetDefaultOptions must come before its first use")

// SetDefaultOptions starts the process-wide wheel (see Default) with opts
// instead of the zero Options: a program that wants another Slack, or
// every timer exact, calls it once, first thing in main, before anything
// starts a timer, sleeps or calls Default.
//
// It returns ErrDefaultStarted if the wheel has started, by its first use
// or an earlier SetDefaultOptions, and leaves that wheel as it is. It
// returns an error for a non-nil opts.Clock (the package-level functions
// read the system clock, so the process-wide wheel must too), inside a
// testing/synctest bubble (where Default cannot start), and for the
// options NewWheel refuses: for Levels that no wheel can run on, whether
// or not the wheel has started.
func SetDefaultOptions(opts Options) error {
	if opts.Clock != nil {
		return errors.New("stashtime: SetDefaultOptions: Options.Clock must be nil: the process-wide wheel runs on the system clock")
	}
	if _, err := storeLevels(opts.Levels); err != nil {
		return err // whether or not the wheel has started
	}
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultWheel.Load() != nil {
		return ErrDefaultStarted
	}
	if _, ok := now(); !ok {
		return errors.New("stashtime: SetDefaultOptions: the process-wide wheel cannot start inside a testing/synctest bubble")
	}
	w, err := NewWheel(opts)
	if err != nil {
		return err
	}
	defaultWheel.Store(w)
	return nil
}
