module stashswap.test/h2c

go 1.26.0

require (
	github.com/stashgo/stash v0.0.0
	golang.org/x/net v0.62.0
)

require (
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

// .ci/stashswap.sh points this at the checkout it runs in.
replace github.com/stashgo/stash => ../../..
