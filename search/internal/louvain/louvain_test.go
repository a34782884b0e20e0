package louvain_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/search/internal/louvain"
)

// replay adds gr to g, emptied at resolution gamma, and clusters it as
// √LTS's rerooters do: each time the number of vertices reaches the
// ceiling of 1.2 times that of the clustering before (the first at 2),
// and at the end; it calls each after each clustering.
func (gr growth) replay(g *louvain.Graph, each func()) {
	g.Reset(gamma)
	next, k := 2, 0
	for v, p := range gr.parents {
		g.AddVertex(p)
		for ; k < len(gr.extra) && int(gr.extra[k][2]) <= v+1; k++ {
			g.AddEdge(gr.extra[k][0], gr.extra[k][1])
		}
		if v+1 == next || v+1 == len(gr.parents) {
			g.Cluster()
			if each != nil {
				each()
			}
			next = max(next+1, int(1.2*float64(next)+0.999))
		}
	}
}

// TestEdges checks that a Graph counts every edge once: none for a
// self-loop, a vertex–parent edge added again or an edge added again in
// either direction.
func TestEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		var g louvain.Graph
		g.Reset(gamma)
		parent := []int32{}
		edges := map[[2]int32]bool{}
		add := func(u, v int32) {
			if u != v {
				edges[[2]int32{min(u, v), max(u, v)}] = true
			}
		}
		for range 300 {
			n := int32(len(parent))
			if n == 0 || rng.IntN(3) == 0 {
				p := int32(-1)
				if n > 0 && rng.IntN(10) > 0 {
					p = rng.Int32N(n)
					add(p, n)
				}
				if v := g.AddVertex(p); v != n {
					t.Fatalf("AddVertex returned %d, want %d", v, n)
				}
				parent = append(parent, p)
				continue
			}
			u, v := rng.Int32N(n), rng.Int32N(n)
			switch rng.IntN(4) {
			case 0:
				v = u
			case 1:
				if parent[u] >= 0 {
					v = parent[u]
				}
			}
			if rng.IntN(2) == 0 {
				u, v = v, u
			}
			add(u, v)
			g.AddEdge(u, v)
			if rng.IntN(20) == 0 {
				g.Cluster()
			}
		}
		if g.Len() != len(parent) || g.Edges() != int64(len(edges)) {
			t.Fatalf("%d vertices, %d edges; want %d, %d", g.Len(), g.Edges(), len(parent), len(edges))
		}
	}
}

// TestLevels checks the levels of every clustering of growing graphs (a
// random tree and forest with edges of cycles and edges between any
// vertices, a search of the 24-puzzle): each level a partition of the
// vertices clustered whose sizes Select gives, each coarser than the one
// before; the chunks connected pieces of the tree; no community across
// two trees of a forest; Middle a level; the modularity of each pass of
// Louvain above that of the level before, and the coarsest level a local
// optimum; the same clusterings again from a Graph reused after another
// graph.
func TestLevels(t *testing.T) {
	forest := randomTree(9, 3000, 0.3, 0.02)
	// Cut the tree into four at vertices 1, 2 and 3, and drop the edges
	// across.
	tree := func(v int32) int32 {
		for forest.parents[v] > 0 {
			v = forest.parents[v]
		}
		return v
	}
	for v := int32(1); v <= 3; v++ {
		forest.parents[v] = -1
	}
	forest.extra = slices.DeleteFunc(forest.extra, func(e [3]int32) bool { return tree(e[0]) != tree(e[1]) })
	cases := []struct {
		name   string
		gr     growth
		forest bool
	}{
		{"tree", randomTree(8, 3000, 0.3, 0.02), false},
		{"forest", forest, true},
		{"stp", searchGraph[stp.State](firstProblem(stp.ReadFile[stp.State], "stp/testdata/puzzles_5x5_test-first40.txt", 1), 2, 5000), false},
	}
	var g, h louvain.Graph
	for _, c := range cases {
		gg := c.gr.build(&g) // for the modularity
		var runs [][][]int32
		c.gr.replay(&g, func() {
			n := g.Clustered()
			H := g.Levels()
			if mid := g.Middle(); H < 2 || mid < 0 || mid >= H {
				t.Fatalf("%s, %d vertices: %d levels, middle %d", c.name, n, H, mid)
			}
			var levels [][]int32
			for l := range H {
				sizes := slices.Clone(g.Select(l))
				m := g.Membership(l, nil)
				counts := make([]int32, len(sizes))
				for _, x := range m {
					counts[x]++
				}
				if !slices.Equal(counts, sizes) || slices.Contains(sizes, 0) {
					t.Fatalf("%s, %d vertices, level %d: sizes %v, counted %v", c.name, n, l, sizes, counts)
				}
				if l > 0 && !coarser(m, levels[l-1]) {
					t.Fatalf("%s, %d vertices: level %d is not coarser than level %d", c.name, n, l, l-1)
				}
				levels = append(levels, m)
			}
			// The chunks: one vertex of each has its parent elsewhere.
			out := map[int32]int{}
			for v, x := range levels[0] {
				if p := c.gr.parents[v]; p < 0 || levels[0][p] != x {
					out[x]++
				}
			}
			for x, k := range out {
				if k != 1 {
					t.Fatalf("%s, %d vertices: chunk %d has %d roots", c.name, n, x, k)
				}
			}
			if c.forest {
				for v, x := range levels[H-1] {
					if w := slices.Index(levels[H-1], x); tree(int32(v)) != tree(int32(w)) {
						t.Fatalf("%s, %d vertices: community %d holds vertices %d and %d of two trees", c.name, n, x, w, v)
					}
				}
			}
			runs = append(runs, levels)
		})
		// The modularity of the passes, on the whole graph: each pass
		// raises it.
		for l := 2; l < g.Levels(); l++ {
			q0, q1 := modularity(gg, g.Membership(l-1, nil)), modularity(gg, g.Membership(l, nil))
			if !(q1 > q0) {
				t.Errorf("%s: level %d: modularity %.6f, not above %.6f of level %d", c.name, l, q1, q0, l-1)
			}
		}
		// The coarsest level is a local optimum: merging two neighbouring
		// communities C and D changes the modularity by 2/m2 times
		// w(C, D) − γ·tot(C)·tot(D)/m2, not above 0.
		m := g.Membership(g.Levels()-1, nil)
		w := map[[2]int32]float64{}
		tot := map[int32]float64{}
		var m2 float64
		es := gg.Edges()
		for es.Next() {
			a, b := m[es.Edge().From().ID()], m[es.Edge().To().ID()]
			tot[a]++
			tot[b]++
			m2 += 2
			if a != b {
				w[[2]int32{min(a, b), max(a, b)}]++
			}
		}
		for cd, x := range w {
			if gain := x - gamma*tot[cd[0]]*tot[cd[1]]/m2; gain > 1e-9 {
				t.Errorf("%s: merging communities %d and %d of the coarsest level raises the modularity by %g/m", c.name, cd[0], cd[1], gain)
			}
		}
		// Again, from a Graph reused.
		i := 0
		c.gr.replay(&h, func() {
			for l, m := range runs[i] {
				if got := h.Membership(l, nil); !slices.Equal(got, m) {
					t.Fatalf("%s, clustering %d, level %d: another clustering the second time", c.name, i, l)
				}
			}
			i++
		})
	}
}

// coarser reports whether partition a merges only whole communities of
// partition b.
func coarser(a, b []int32) bool {
	to := map[int32]int32{}
	for v, x := range b {
		if y, ok := to[x]; ok && y != a[v] {
			return false
		}
		to[x] = a[v]
	}
	return true
}

// TestTwoStars checks that two stars joined by their centres end in two
// communities, each centre with its leaves: one community would have a
// modularity of 1 − γ = 0.9, two about 0.94.
func TestTwoStars(t *testing.T) {
	gr := growth{parents: []int32{-1, 0}}
	for v := int32(2); v < 102; v++ {
		gr.parents = append(gr.parents, v%2)
	}
	var g louvain.Graph
	gr.replay(&g, nil)
	m := g.Membership(g.Levels()-1, nil)
	for v, x := range m {
		if x != m[v%2] || m[0] == m[1] {
			t.Fatalf("communities %v; want the two stars", m)
		}
	}
}

// TestAllocs checks that a Graph reused for the same graph allocates
// nothing, clusterings included.
func TestAllocs(t *testing.T) {
	gr := randomTree(3, 5000, 0.3, 0.01)
	var g louvain.Graph
	gr.replay(&g, nil)
	if a := testing.AllocsPerRun(3, func() { gr.replay(&g, nil) }); a != 0 {
		t.Errorf("%.0f allocations growing and clustering a graph again; want 0", a)
	}
}

// BenchmarkCluster grows the graph of a search of the 24-puzzle as
// √LTS's clustering rerooters do, clustering it each time it has 1.2 times
// the vertices of the clustering before, with a Graph reused: the time
// per vertex, and the chunks and groups of the last clustering.
func BenchmarkCluster(b *testing.B) {
	gr := searchGraph[stp.State](firstProblem(stp.ReadFile[stp.State], "stp/testdata/puzzles_5x5_test-first40.txt", 0), 1, 200000)
	var g louvain.Graph
	gr.replay(&g, nil)
	b.ReportAllocs()
	for b.Loop() {
		gr.replay(&g, nil)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(gr.parents)), "ns/vertex")
	b.ReportMetric(float64(len(g.Select(0))), "chunks")
	b.ReportMetric(float64(len(g.Select(g.Levels()-1))), "communities")
}
