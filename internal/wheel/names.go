package wheel

import "strconv"

// The names the typed constants print as, in test failures and traces.

func (k timerKind) String() string {
	switch k {
	case kindChan:
		return "chan"
	case kindFunc:
		return "func"
	case kindTicker:
		return "ticker"
	case kindStdTimer:
		return "std timer"
	case kindStdTicker:
		return "std ticker"
	}
	return "timerKind(" + strconv.Itoa(int(k)) + ")"
}

func (g chanRef) String() string {
	switch g {
	case refWeak:
		return "weak"
	case refStrong:
		return "strong"
	case refUnfiled:
		return "unfiled"
	case refToWeaken:
		return "toWeaken"
	}
	return "chanRef(" + strconv.Itoa(int(g)) + ")"
}

func (h holder) String() string {
	switch h {
	case noHolder:
		return "none"
	case storeHolder:
		return "store"
	case heapHolder:
		return "heap"
	case intakeHolder:
		return "intake"
	}
	return "holder(" + strconv.Itoa(int(h)) + ")"
}
