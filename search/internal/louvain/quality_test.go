package louvain_test

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/community"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/internal/louvain"
)

// gamma is the resolution of √LTS's clustering rerooters.
const gamma = 0.1

// A growth is a graph in the order a search makes it: each vertex with
// its parent (−1 for the root), and the other edges, each with the number
// of vertices when it is added.
type growth struct {
	parents []int32
	extra   [][3]int32 // u, v, vertices then
}

// build adds gr to a Graph and to a gonum graph.
func (gr growth) build(g *louvain.Graph) *simple.UndirectedGraph {
	gg := simple.NewUndirectedGraph()
	g.Reset(gamma)
	k := 0
	for v, p := range gr.parents {
		g.AddVertex(p)
		gg.AddNode(simple.Node(v))
		if p >= 0 {
			gg.SetEdge(simple.Edge{F: simple.Node(p), T: simple.Node(v)})
		}
		for ; k < len(gr.extra) && int(gr.extra[k][2]) <= v+1; k++ {
			u, w := gr.extra[k][0], gr.extra[k][1]
			g.AddEdge(u, w)
			if u != w && !gg.HasEdgeBetween(int64(u), int64(w)) {
				gg.SetEdge(simple.Edge{F: simple.Node(u), T: simple.Node(w)})
			}
		}
	}
	return gg
}

// randomTree grows a tree of n vertices as a best-first search with a
// random order would: a vertex taken at random from the leaves gets 1 to
// 3 children. With probability local, a vertex taken also gets an edge
// to a vertex near it (up 2 to 5 levels, then down at random: a cycle of
// at most 10 edges, as repeated states make), and with probability far,
// an edge to any vertex.
func randomTree(seed uint64, n int, local, far float64) growth {
	rng := rand.New(rand.NewPCG(seed, 7))
	var gr growth
	gr.parents = []int32{-1}
	children := [][]int32{nil}
	open := []int32{0}
	for len(gr.parents) < n && len(open) > 0 {
		k := rng.IntN(len(open))
		v := open[k]
		open[k] = open[len(open)-1]
		open = open[:len(open)-1]
		for range 1 + rng.IntN(3) {
			if len(gr.parents) == n {
				break
			}
			c := int32(len(gr.parents))
			gr.parents = append(gr.parents, v)
			children = append(children, nil)
			children[v] = append(children[v], c)
			open = append(open, c)
		}
		vs := int32(len(gr.parents))
		if rng.Float64() < local {
			a, up := v, 2+rng.IntN(4)
			for range up {
				if gr.parents[a] >= 0 {
					a = gr.parents[a]
				}
			}
			for range 1 + rng.IntN(up) {
				if len(children[a]) == 0 {
					break
				}
				a = children[a][rng.IntN(len(children[a]))]
			}
			gr.extra = append(gr.extra, [3]int32{v, a, vs})
		}
		if rng.Float64() < far {
			gr.extra = append(gr.extra, [3]int32{v, rng.Int32N(vs), vs})
		}
	}
	return gr
}

// searchGraph grows the graph of a best-first search on p of n vertices:
// LevinTS's order under a random policy (fixed per state), each child a
// vertex, a child of a state seen before an edge to its vertex.
func searchGraph[S comparable](p search.Problem[S], seed uint64, n int) growth {
	rng := rand.New(rand.NewPCG(seed, 11))
	A := p.NumActions()
	var gr growth
	index := map[S]int32{p.Root(): 0}
	gr.parents = []int32{-1}
	type entry struct {
		s     S
		v     int32
		cost  float64
		logPi float64
		depth int
	}
	var open entryHeap[entry]
	open.less = func(a, b entry) bool { return a.cost < b.cost || a.cost == b.cost && a.v < b.v }
	heap.Push(&open, entry{s: p.Root()})
	logPi := make([]float64, A)
	for len(gr.parents) < n && open.Len() > 0 {
		x := heap.Pop(&open).(entry)
		sum := 0.0
		for a := range logPi {
			logPi[a] = -4 * rng.Float64()
			sum += math.Exp(logPi[a])
		}
		for a := range A {
			c, ok := p.Apply(x.s, a)
			if !ok {
				continue
			}
			if u, seen := index[c]; seen {
				gr.extra = append(gr.extra, [3]int32{x.v, u, int32(len(gr.parents))})
				continue
			}
			if len(gr.parents) == n {
				break
			}
			v := int32(len(gr.parents))
			index[c] = v
			gr.parents = append(gr.parents, x.v)
			lp := x.logPi + logPi[a] - math.Log(sum)
			heap.Push(&open, entry{s: c, v: v, logPi: lp, depth: x.depth + 1, cost: math.Log(float64(x.depth+1)) - lp})
		}
	}
	return gr
}

type entryHeap[T any] struct {
	xs   []T
	less func(a, b T) bool
}

func (h *entryHeap[T]) Len() int           { return len(h.xs) }
func (h *entryHeap[T]) Less(i, j int) bool { return h.less(h.xs[i], h.xs[j]) }
func (h *entryHeap[T]) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *entryHeap[T]) Push(x any)         { h.xs = append(h.xs, x.(T)) }
func (h *entryHeap[T]) Pop() any {
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}

// modularity returns the modularity of g's partition m (the community of
// each vertex) at resolution gamma, in O(V + E): gonum's community.Q
// takes the square of each community's size.
func modularity(g *simple.UndirectedGraph, m []int32) float64 {
	in := make([]float64, len(m))
	tot := make([]float64, len(m))
	var m2 float64
	es := g.Edges()
	for es.Next() {
		e := es.Edge()
		u, v := m[e.From().ID()], m[e.To().ID()]
		m2 += 2
		tot[u]++
		tot[v]++
		if u == v {
			in[u] += 2
		}
	}
	q := 0.0
	for c := range tot {
		q += in[c]/m2 - gamma*(tot[c]/m2)*(tot[c]/m2)
	}
	return q
}

// gonumLevels returns the partitions of gonum's Louvain hierarchy of g
// (the seed of the rerooter it clustered with), from the finest.
func gonumLevels(g *simple.UndirectedGraph) [][]int32 {
	n := g.Nodes().Len()
	var levels [][]int32
	for l := community.Modularize(g, gamma, rand.NewPCG(0x5eed, 0)); ; {
		levels = append(levels, membership(l.Communities(), n))
		next, ok := l.Expanded().(*community.ReducedUndirected)
		if !ok || next == nil {
			break
		}
		l = next
	}
	for i, j := 0, len(levels)-1; i < j; i, j = i+1, j-1 {
		levels[i], levels[j] = levels[j], levels[i]
	}
	return levels
}

func membership(cs [][]graph.Node, n int) []int32 {
	m := make([]int32, n)
	for c, vs := range cs {
		for _, v := range vs {
			m[v.ID()] = int32(c)
		}
	}
	return m
}

func count(m []int32) int {
	seen := map[int32]bool{}
	for _, c := range m {
		seen[c] = true
	}
	return len(seen)
}

// firstProblem returns the first problem of a test data file of a domain.
func firstProblem[P any](read func(string) ([]P, error), path string, i int) P {
	ps, err := read("../../../domain/" + path)
	if err != nil {
		panic(err)
	}
	return ps[i]
}

// TestModularity checks the modularity of the coarsest level of a Graph's
// clustering against that of gonum's community.Modularize, at the same
// resolution, on random search-like trees (with edges of cycles, as
// repeated states make, and with edges between any vertices) and on the
// graphs of searches of the four domains: at least 0.98 times gonum's,
// clustered once at the end and clustered as the graph grows, as √LTS's
// rerooters do. It logs the modularity and the number of communities of
// the level Middle chooses and of gonum's middle level.
func TestModularity(t *testing.T) {
	big := 20000
	if testing.Short() {
		big = 5000
	}
	cases := []struct {
		name string
		gr   func() growth
	}{
		{"tree 100", func() growth { return randomTree(1, 100, 0, 0) }},
		{"tree 1000", func() growth { return randomTree(2, 1000, 0, 0) }},
		{fmt.Sprint("tree ", big), func() growth { return randomTree(3, big, 0, 0) }},
		{"tree 1000, cycles", func() growth { return randomTree(4, 1000, 0.3, 0) }},
		{fmt.Sprint("tree ", big, ", cycles"), func() growth { return randomTree(5, big, 0.3, 0) }},
		{fmt.Sprint("tree ", big, ", many cycles"), func() growth { return randomTree(6, big, 1, 0) }},
		{fmt.Sprint("tree ", big, ", far edges"), func() growth { return randomTree(7, big, 0, 0.05) }},
		{fmt.Sprint("stp ", big), func() growth {
			return searchGraph[stp.State](firstProblem(stp.ReadFile[stp.State], "stp/testdata/puzzles_5x5_test-first40.txt", 0), 1, big)
		}},
		{fmt.Sprint("sokoban ", big), func() growth {
			return searchGraph[sokoban.State](firstProblem(sokoban.ReadFile, "sokoban/testdata/boxoban-test-000-first40.txt", 0), 1, big)
		}},
		{fmt.Sprint("witness ", big), func() growth {
			return searchGraph[witness.State](firstProblem(witness.ReadFile, "witness/testdata/puzzles_4x4_test-first40.txt", 0), 1, big)
		}},
		{fmt.Sprint("rubiks ", big), func() growth {
			return searchGraph[rubiks.State](firstProblem(rubiks.ReadFile, "rubiks/testdata/deepcubea_test_1000-first40.txt", 0), 1, big)
		}},
	}
	var g louvain.Graph
	for _, c := range cases {
		gr := c.gr()
		gg := gr.build(&g)
		if g.Edges() != int64(gg.Edges().Len()) || g.Len() != gg.Nodes().Len() {
			t.Fatalf("%s: %d vertices and %d edges; gonum has %d and %d", c.name, g.Len(), g.Edges(), gg.Nodes().Len(), gg.Edges().Len())
		}
		levels := gonumLevels(gg)
		theirs, theirsMid := levels[len(levels)-1], levels[len(levels)/2]
		qg := modularity(gg, theirs)
		g.Cluster()
		once := modularity(gg, g.Membership(g.Levels()-1, nil))
		gr.replay(&g, nil)
		H, mid := g.Levels(), g.Middle()
		ours, oursMid := g.Membership(H-1, nil), g.Membership(mid, nil)
		q := modularity(gg, ours)
		t.Logf("%-24s %5d vertices %5d edges: coarsest Q %.4f (%d communities), once %.4f, gonum %.4f (%d): %.4f, %.4f; "+
			"middle: level %d of %d, Q %.4f (%d), gonum %d of %d: %.4f (%d)",
			c.name, g.Len(), g.Edges(), q, count(ours), once, qg, count(theirs), q/qg, once/qg,
			mid, H, modularity(gg, oursMid), count(oursMid), len(levels)/2, len(levels), modularity(gg, theirsMid), count(theirsMid))
		if q < 0.98*qg || once < 0.98*qg {
			t.Errorf("%s: modularity %.4f grown, %.4f clustered once: %.4f and %.4f times gonum's %.4f; want at least 0.98 times",
				c.name, q, once, q/qg, once/qg, qg)
		}
	}
}
