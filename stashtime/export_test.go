package stashtime

// TickerIdleAfter is idleAfter, for the external tests' model of a ticker
// nobody drains (conformance_model_test.go).
var TickerIdleAfter = idleAfter
