package models_test

import (
	"context"
	"testing"

	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/models"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

func TestDefaultMissing(t *testing.T) {
	m, err := models.Default("sokoban")
	if m != nil || err != nil {
		t.Errorf("Default(sokoban) = %v, %v; want no model", m, err)
	}
}

// TestWitness checks that the shipped Witness model fits the domain's
// encoding and still solves the bundled sample with few expansions: a
// change to the encoding or the network that the model was not trained
// for makes it fail.
func TestWitness(t *testing.T) {
	m, err := models.Default("witness")
	if err != nil || m == nil {
		t.Fatalf("Default(witness) = %v, %v", m, err)
	}
	ps, err := witness.ReadFile("../examples/witness-4x4.txt")
	if err != nil {
		t.Fatal(err)
	}
	c, h, w := ps[0].InputShape()
	if err := m.Check("witness", c, h, w); err != nil {
		t.Fatal(err)
	}
	alg, err := search.ParseAlgorithm(m.Config().Algorithm, 0)
	if err != nil {
		t.Fatal(err)
	}
	ev := model.NewEvaluator[witness.State](m)
	var total int64
	for _, p := range ps {
		// A uniform policy needs thousands of expansions on some of these.
		res, err := search.BestFirst(context.Background(), p, ev, alg, search.Options{Budget: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Solved {
			t.Errorf("%s: not solved within 2000 expansions", p.ID)
			continue
		}
		if err := searchtest.Replay(p, res.Actions); err != nil {
			t.Errorf("%s: %v", p.ID, err)
		}
		total += res.Expansions
	}
	if mean := float64(total) / float64(len(ps)); mean > 500 {
		t.Errorf("mean expansions %.1f, want at most 500 (the model solved them with 192.9)", mean)
	}
}
