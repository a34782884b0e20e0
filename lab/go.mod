module github.com/phs-go/phs/lab

go 1.26.0

require github.com/phs-go/phs v0.0.0

require golang.org/x/mod v0.43.0

require (
	github.com/ebitengine/purego v0.11.3 // indirect
	golang.org/x/sys v0.49.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)

replace github.com/phs-go/phs => ../
