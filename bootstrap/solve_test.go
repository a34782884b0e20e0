package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// sleepy returns a search that takes a random short time and reports the
// task's index (encoded in the maze root) as its expansions.
func sleepy(workers int, seed uint64) []Solver[int32] {
	return pool(workers, func(ctx context.Context, p search.Problem[int32]) (search.Result[int32], error) {
		r := rand.New(rand.NewPCG(seed, uint64(p.Root())))
		time.Sleep(time.Duration(r.IntN(2000)) * time.Microsecond)
		return search.Result[int32]{Expansions: int64(p.Root())}, nil
	})
}

func pool(workers int, s Solver[int32]) []Solver[int32] {
	ss := make([]Solver[int32], workers)
	for i := range ss {
		ss[i] = s
	}
	return ss
}

func tasks(n int) []Task[int32] {
	var ts []Task[int32]
	for i := range n {
		row := []byte("....................")
		row[i%len(row)] = 'S'
		row[(i+1)%len(row)] = 'G'
		ts = append(ts, Task[int32]{ID: fmt.Sprint("t#", i), Problem: searchtest.ParseMaze(string(row))})
	}
	return ts
}

func TestSolveOrder(t *testing.T) {
	for _, workers := range []int{1, 3, 8} {
		ts := tasks(20)
		var got []int
		err := Solve(context.Background(), ts, sleepy(workers, uint64(workers)),
			func(i int, r search.Result[int32]) error {
				if int64(ts[i].Problem.Root()) != r.Expansions {
					t.Errorf("result %d belongs to another task", i)
				}
				got = append(got, i)
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if g != i {
				t.Fatalf("workers=%d: emitted %v, want input order", workers, got)
			}
		}
		if len(got) != len(ts) {
			t.Fatalf("workers=%d: emitted %d of %d", workers, len(got), len(ts))
		}
	}
}

func TestSolveErrors(t *testing.T) {
	boom := errors.New("boom")
	ts := tasks(20)
	failing := pool(4, func(ctx context.Context, p search.Problem[int32]) (search.Result[int32], error) {
		if p.Root() == 7 {
			return search.Result[int32]{}, boom
		}
		return search.Result[int32]{}, nil
	})
	n := 0
	err := Solve(context.Background(), ts, failing, func(int, search.Result[int32]) error { n++; return nil })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if n > 7 {
		t.Errorf("emitted %d results past the failing task 7", n)
	}

	stop := errors.New("stop")
	err = Solve(context.Background(), ts, sleepy(4, 1), func(i int, _ search.Result[int32]) error {
		if i == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want stop", err)
	}
}

func TestSolveCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ts := tasks(200)
	n := 0
	err := Solve(ctx, ts, sleepy(2, 2), func(i int, _ search.Result[int32]) error {
		n++
		if i == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n == len(ts) {
		t.Error("cancellation did not stop the run")
	}
}
