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

func (g grip) String() string {
	switch g {
	case gripWeak:
		return "weak"
	case gripStrong:
		return "strong"
	case gripToFile:
		return "toFile"
	case gripToWeaken:
		return "toWeaken"
	}
	return "grip(" + strconv.Itoa(int(g)) + ")"
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
