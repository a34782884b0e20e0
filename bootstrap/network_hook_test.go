package bootstrap

import "github.com/phs-go/phs/model"

// The tests of the package train the network learner of package network,
// which imports this package: a test file of package bootstrap cannot
// import it. network_test.go, of package bootstrap_test, which can, sets
// these hooks before the tests run.
var (
	// NewTestNetwork returns a network learner that trains m in place
	// (network.NewLearner).
	NewTestNetwork func(m *model.Model, cfg TestNetworkConfig, threads int) (TestNetwork, error)
	// LoadTestNetwork loads the network learner that Save wrote to dir
	// (network.LoadLearner).
	LoadTestNetwork func(dir string) (TestNetwork, error)
	// TestNetworkSnapshot returns a snapshot of the network m.
	TestNetworkSnapshot func(m *model.Model) Snapshot[int32]
)

// TestNetworkConfig holds the settings of network.LearnerConfig that the
// tests set.
type TestNetworkConfig struct {
	LearningRate     float64
	Passes           int
	StepTrajectories int
	Seed             uint64
}

// A TestNetwork is a network learner of the tests.
type TestNetwork interface {
	Learner[int32]
	Model() *model.Model
}
