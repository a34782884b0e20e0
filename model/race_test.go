package model

import (
	"github.com/phs-go/phs/internal/race"
	"github.com/phs-go/phs/nn"
)

// raceOpenBLAS reports whether counts of allocations are meaningless:
// under the race detector, the calls to OpenBLAS allocate now and then
// (see package race).
func raceOpenBLAS() bool { return race.Enabled && nn.Backend() == "openblas" }
