package stashtime

import "github.com/stashgo/stash/internal/wheel"

// DefaultSlack is the most a timer may fire after its deadline on a wheel
// whose Options.Slack is 0: about 524 µs, the slack of a timer armed 8.4 ms
// or more ahead (see Precision in the package documentation). It is as late
// as the runtime's timers commonly fire under load, and the wider a timer's
// window, the more timers due near it one wake-up of the driver fires.
const DefaultSlack = Duration(wheel.DefaultSlack)
