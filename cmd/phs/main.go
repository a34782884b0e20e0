// Command phs solves search problems with Policy-Guided Heuristic Search and
// its peers, generates problem sets, and trains and tests models.
//
// Run "phs help" for the commands and "phs COMMAND -h" for the flags of a
// command; package cli documents them.
package main

import "github.com/phs-go/phs/cli"

func main() { cli.Main(cli.Shipped()...) }
