// Package deadlock holds the tests of what stashtime leaves to the
// runtime's deadlock detector (rule 18 of docs/semantics.md): a program
// whose goroutines are all blocked, with no timer pending, dies with "all
// goroutines are asleep - deadlock!" after it has used the wheel, as it does
// after using package time; and Sleep(math.MaxInt64) blocks on without a
// report, as time.Sleep does.
//
// The tests run scenarios in child processes of a test binary of their
// own: a program that links net/http is never reported deadlocked, and the
// tests of package stashtime link it (through testify).
package deadlock
