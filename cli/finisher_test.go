package cli

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestFinisher checks that a finisher writes in the order of add, whatever
// the order its passes end in, runs at most n passes at once, and after a
// writer fails writes no more, refuses more passes and returns that
// writer's error.
func TestFinisher(t *testing.T) {
	for _, n := range []int{1, 3} {
		for _, fail := range []int{-1, 4} { // -1: no writer fails
			f := newFinisher(n)
			running := make(chan struct{}, 16) // the passes under way
			var written []int
			var addErr error
			rng := rand.New(rand.NewPCG(uint64(n), 1))
			for i := range 12 {
				d := time.Duration(rng.IntN(300)) * time.Microsecond
				addErr = f.add(func() func() error {
					running <- struct{}{}
					if len(running) > n {
						t.Errorf("n %d: %d passes at once", n, len(running))
					}
					time.Sleep(d)
					<-running
					return func() error {
						written = append(written, i)
						if i == fail {
							return errors.New("disk full")
						}
						return nil
					}
				})
				if addErr != nil {
					t.Fatalf("n %d: add %d: %v", n, i, addErr)
				}
				if i == fail {
					break
				}
			}
			if fail >= 0 {
				for deadline := time.Now().Add(10 * time.Second); !f.failed.Load() && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				addErr = f.add(func() func() error { return func() error { t.Error("a writer after the failure"); return nil } })
			}
			err := f.close(addErr)
			want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
			if fail >= 0 {
				want = want[:fail+1]
				if err == nil || err.Error() != "disk full" || !errors.Is(addErr, errFinished) {
					t.Errorf("n %d: writer %d fails: close %v, add %v", n, fail, err, addErr)
				}
			} else if err != nil {
				t.Errorf("n %d: close: %v", n, err)
			}
			if !slices.Equal(written, want) {
				t.Errorf("n %d, failing %d: written %v, want %v", n, fail, written, want)
			}
		}
	}
}
