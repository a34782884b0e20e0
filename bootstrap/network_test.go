package bootstrap_test

import (
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/network"
)

func init() {
	bootstrap.NewTestNetwork = func(m *model.Model, cfg bootstrap.TestNetworkConfig, threads int) (bootstrap.TestNetwork, error) {
		return network.NewLearner[int32](m, network.LearnerConfig{LearningRate: cfg.LearningRate, Passes: cfg.Passes, StepTrajectories: cfg.StepTrajectories, Seed: cfg.Seed}, threads)
	}
	bootstrap.LoadTestNetwork = func(dir string) (bootstrap.TestNetwork, error) { return network.LoadLearner[int32](dir, 0) }
	bootstrap.TestNetworkSnapshot = func(m *model.Model) bootstrap.Snapshot[int32] {
		b, err := model.MarshalModel(m)
		if err != nil {
			panic(err)
		}
		snap, err := network.DecodeSnapshot[int32](b)
		if err != nil {
			panic(err)
		}
		return snap
	}
}
