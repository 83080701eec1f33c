package poller

// state exposes the wake protocol of either poller to the tests.
func (w *wakeState) state() *wakeState { return w }

type stater interface{ state() *wakeState }

func stateOf(p Poller) *wakeState { return p.(stater).state() }
