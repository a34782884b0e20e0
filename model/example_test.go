package model_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// Example makes the paper's two-headed network for PHS* on 10x10 Sokoban
// inputs, takes one training step on a two-step trajectory, saves it and
// loads it back.
func Example() {
	m, err := model.New(model.Config{
		Domain: "sokoban", Algorithm: search.PHSStar(),
		Heads: model.Both, PolicyLoss: model.Levin, HeuristicLoss: model.SquaredError,
		Channels: 4, Height: 10, Width: 10, Actions: 4,
	}, 1)
	if err != nil {
		log.Fatal(err)
	}
	// The trajectory's two states, as a domain would encode them.
	s := model.Sample{
		Inputs:     make([]float32, 2*4*10*10),
		Actions:    []int{3, 0},
		CostToGo:   []float32{2, 1},
		Expansions: 10,
	}
	for i := range s.Inputs {
		s.Inputs[i] = float32(i % 3 / 2)
	}
	tr := model.NewTrainer(m, model.TrainConfig{})
	l, err := tr.Step(s)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("losses positive:", l.Policy > 0, l.Heuristic > 0)

	dir, err := os.MkdirTemp("", "model")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := model.Save(filepath.Join(dir, "sokoban"), m); err != nil {
		log.Fatal(err)
	}
	back, err := model.Load(filepath.Join(dir, "sokoban"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.Check("sokoban", 4, 10, 10))
	fmt.Println(back.Check("witness", 9, 9, 9))
	// Output:
	// losses positive: true true
	// <nil>
	// model: the model is for the sokoban domain, not witness
}
