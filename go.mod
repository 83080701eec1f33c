module github.com/stashgo/stash

go 1.24.0

require (
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.40.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
