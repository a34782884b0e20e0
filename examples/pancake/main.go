// Command pancake is phs for the pancake puzzle: every phs command (solve,
// test, train, plot, worker, generate) with -domain pancake. A stack of n
// pancakes is a line of the numbers 0 to n-1, top first; the networks of
// train need stacks of at least 3.
//
//	go run ./examples/pancake generate pancake -size 7 -n 20 -out stacks.txt
//	go run ./examples/pancake solve -domain pancake -alg astar stacks.txt
package main

import "github.com/phs-go/phs/cli"

var domain = cli.NewDomain[State]("pancake", Parse, cli.WithGenerator(&generator{}), cli.InitialBudget(200))

func main() { cli.Main(domain) }
