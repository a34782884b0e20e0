package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/phs-go/phs/nn"
)

// Example fits a dense layer to y = 2x−1 with Adam.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	l := nn.NewDense("fit", rng, 1, 1)
	opt := nn.NewAdam([]*nn.Param{l.Weight, l.Bias}, 0.05, 0)
	x := []float32{-1, 0, 1, 2}
	y, dy := make([]float32, 4), make([]float32, 4)
	for range 1000 {
		l.Forward(x, 4, y)
		for i := range y {
			dy[i] = 2 * (y[i] - (2*x[i] - 1)) / 4 // gradient of the mean squared error
		}
		l.Backward(x, 4, dy, nil)
		opt.Step()
	}
	fmt.Printf("w %.2f, b %.2f\n", math.Round(float64(l.Weight.Data[0])*100)/100, math.Round(float64(l.Bias.Data[0])*100)/100)
	// Output: w 2.00, b -1.00
}
