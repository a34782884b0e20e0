// Package louvain clusters a growing graph by modularity, as √LTS's
// clustering rerooters need: the graph of a search, which gains vertices
// and edges between clusterings and is clustered again and again, in time
// far below that of clustering it from scratch each time.
//
// A Graph's vertices are numbered 0, 1, … in the order they are added,
// each joined to a parent added before it (the search tree) or to none;
// other edges may join any two vertices (the repeated states). The graph
// is undirected and simple: self-loops and repeated edges are dropped.
//
// Its clustering has levels, from the finest to the coarsest; the first
// two are kept from one clustering to the next, and only grow. Level 0,
// the chunks, are connected pieces of the tree: Cluster places each
// vertex once, when it first sees it, parents before children, a vertex
// without children as a leaf of its parent's chunk, one with children as
// a core vertex of it while the chunk has fewer than min(⌊√n/4⌋, 32) core
// vertices (n the vertices, the cap at least 1), and otherwise as the root
// of a new chunk; a leaf that has children by a later clustering is
// placed again so. Chunks thus grow down the tree, never across it, and a
// vertex moves at most once. Level 1, the groups, are communities of
// chunks: each new chunk in a group of its own, then Louvain's local
// moving (Blondel et al., 2008) of the chunks that are new, that changed
// or that gained an extra edge since the last clustering, and of those
// whose neighbours move, each to the neighbouring group, or alone, that
// raises the modularity at resolution γ most and keeps the group within
// 2√n vertices, until none does. Cluster then runs Louvain on the graph
// of the groups, from singletons, each pass a level: local moving in a
// fixed pseudo-random order, then aggregation, until a pass moves
// nothing. The last level is the best partition found. The clustering is
// a function of the graph and of the clusterings before.
//
// Costs: AddVertex is O(1); AddEdge O(d), d the least number of extra
// edges at either end; Cluster O(V + K + X), and O(G + X) per pass, V the
// vertices added since the last clustering, K the chunks, G the groups and
// X the extra edges, plus the local moving of the changed chunks. A Graph
// allocates only to grow its arrays, which Reset keeps for the next
// graph: 16 bytes per vertex, 24 per extra edge and about 80 per chunk
// (a search of 224,000 nodes of the 24-puzzle makes 19,800 chunks).
package louvain

import "math"

// VertexBytes is the memory of a vertex of a Graph.
const VertexBytes = 16

// maxCore is the largest number of core vertices of a chunk.
const maxCore = 32

// A Graph is a growing graph and its clustering. The zero value is an
// empty graph at resolution 0; see Reset.
type Graph struct {
	gamma float64

	verts  []vertex
	chunks []chunk
	roots  int // vertices without a parent
	placed int // vertices 0 to placed−1 are placed
	// promote lists the leaves that have children since they were placed.
	promote []int32
	// changed lists the chunks changed since the last clustering, with
	// repeats.
	changed []int32
	// The extra edges, those that are not vertex–parent: extraA[i]–
	// extraB[i], and each as two half-edges xto[h], in lists per vertex
	// linked by xnext.
	extraA, extraB []int32
	xto, xnext     []int32
	extraSeen      int // extra edges seen by the last clustering

	// group is the group of each chunk, numbered as one of its chunks;
	// gsize the vertices of each group (by that number), queued whether
	// each chunk is in the queue of the local moving.
	group, gsize []int32
	queued       []bool

	// The last clustering: the vertices it covers, maps[0] the group of
	// each chunk numbered from 0, maps[p] the community, in the graph of
	// pass p+1, of each node of pass p's graph (pass 1's nodes are the
	// groups), and the communities of each level.
	clustered int
	maps      [][]int32
	counts    []int
	gverts    []int32 // of each group numbered from 0
	// Select's: the community of each group, then of each chunk, and the
	// size of each community.
	selGroup, sel, selSize []int32

	// Scratch, kept from one clustering to the next.
	g, h            levelGraph
	comm, queue     []int32
	touched         []int32
	inQueue         []bool
	acc             []int32
	tot             []float64
	pos, cnt, order []int32
}

// A vertex is what a Graph keeps of a vertex: its parent (−1 if none), its
// chunk (−1 until placed), the first of its extra half-edges (−1 if none),
// and their number with the flags isLeaf and hasChildren.
type vertex struct {
	parent, chunk int32
	xhead         int32
	xdeg          int32
}

const (
	isLeaf      = 1 << 30 // placed as a leaf
	hasChildren = 1 << 29
	degMask     = hasChildren - 1
)

// A chunk is what a Graph keeps of a chunk: its number of vertices, of core
// vertices (its root's included), and its parent: the chunk of its root's
// parent (−1 if none).
type chunk struct {
	size, core int32
	parent     int32
}

// A levelGraph is the graph of one pass: n nodes, the adjacency of node
// i in adj[off[i]:off[i+1]] with weights w (no self-loops; a node may
// appear more than once), self[i] twice the weight inside node i, k[i]
// its degree (self[i] plus its row's weights).
type levelGraph struct {
	n    int
	off  []int32
	adj  []int32
	w    []int32
	self []int32
	k    []float64
}

// Reset empties g, keeping its memory, and sets its resolution γ > 0.
func (g *Graph) Reset(gamma float64) {
	g.gamma = gamma
	g.verts, g.chunks = g.verts[:0], g.chunks[:0]
	g.roots, g.placed = 0, 0
	g.promote, g.changed = g.promote[:0], g.changed[:0]
	g.extraA, g.extraB = g.extraA[:0], g.extraB[:0]
	g.xto, g.xnext = g.xto[:0], g.xnext[:0]
	g.extraSeen = 0
	g.group, g.gsize, g.queued = g.group[:0], g.gsize[:0], g.queued[:0]
	g.clustered, g.counts = 0, g.counts[:0]
	g.maps, g.gverts, g.sel = g.maps[:0], g.gverts[:0], g.sel[:0]
}

// Len returns the number of vertices.
func (g *Graph) Len() int { return len(g.verts) }

// Edges returns the number of edges.
func (g *Graph) Edges() int64 { return int64(len(g.verts)-g.roots) + int64(len(g.extraA)) }

// AddVertex adds a vertex joined to parent, a vertex of g, or to none if
// parent is −1, and returns its number.
func (g *Graph) AddVertex(parent int32) int32 {
	v := int32(len(g.verts))
	if parent < 0 {
		g.roots++
	} else if p := &g.verts[parent]; p.xdeg&hasChildren == 0 {
		p.xdeg |= hasChildren
		if p.xdeg&isLeaf != 0 {
			g.promote = append(g.promote, parent)
		}
	}
	g.verts = append(g.verts, vertex{parent: parent, chunk: -1, xhead: -1})
	return v
}

// AddEdge adds an edge between vertices u and v of g, unless u = v or
// they are joined already.
func (g *Graph) AddEdge(u, v int32) {
	a, b := &g.verts[u], &g.verts[v]
	if u == v || a.parent == v || b.parent == u {
		return
	}
	// Look for v in u's list, or u in v's if shorter.
	h, other := a.xhead, v
	if b.xdeg&degMask < a.xdeg&degMask {
		h, other = b.xhead, u
	}
	for ; h >= 0; h = g.xnext[h] {
		if g.xto[h] == other {
			return
		}
	}
	g.half(u, v)
	g.half(v, u)
	g.extraA = append(g.extraA, u)
	g.extraB = append(g.extraB, v)
}

// half adds the half-edge u→v to u's list.
func (g *Graph) half(u, v int32) {
	x := &g.verts[u]
	g.xto = append(g.xto, v)
	g.xnext = append(g.xnext, x.xhead)
	x.xhead = int32(len(g.xto) - 1)
	x.xdeg++
}

// resize returns s with length n, growing it as append does; the
// elements are not cleared.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		s = append(s[:cap(s)], make([]T, n-cap(s))...)
	}
	return s[:n]
}

// coreCap returns the most core vertices of a chunk in a graph of n
// vertices: ⌊√n/4⌋, at least 1, at most maxCore.
func coreCap(n int) int32 {
	return min(max(int32(math.Sqrt(float64(n))/4), 1), maxCore)
}

// groupCap returns the most vertices of a group in a graph of n
// vertices: ⌊2√n⌋.
func groupCap(n int) int32 { return int32(2 * math.Sqrt(float64(n))) }

// Cluster clusters g as it is now (see the package comment): the levels
// that Levels, Select and Membership then report.
func (g *Graph) Cluster() {
	k0 := len(g.chunks)
	g.place(coreCap(g.Len()))
	k := len(g.chunks)
	g.clustered = g.Len()
	g.maps = g.maps[:0]
	// New chunks start in groups of their own, and are changed, as are
	// the chunks of the ends of new extra edges.
	g.group, g.gsize, g.queued = resize(g.group, k), resize(g.gsize, k), resize(g.queued, k)
	for c := k0; c < k; c++ {
		g.group[c] = int32(c)
		g.queued[c] = false
		g.changed = append(g.changed, int32(c))
	}
	for i := g.extraSeen; i < len(g.extraA); i++ {
		g.changed = append(g.changed, g.verts[g.extraA[i]].chunk, g.verts[g.extraB[i]].chunk)
	}
	g.extraSeen = len(g.extraA)
	m2 := 2 * float64(g.Edges())
	if m2 > 0 {
		g.chunkGraph()
		g.moveGroups(m2, groupCap(g.Len()))
	}
	g.changed = g.changed[:0]
	// maps[0]: the groups numbered from 0.
	label := resize(g.pos, k)
	for c := range label {
		label[c] = -1
	}
	ng := int32(0)
	m0 := g.newMap(k)
	gverts := g.gverts[:0]
	for c, x := range g.group {
		if label[x] < 0 {
			label[x] = ng
			ng++
			gverts = append(gverts, 0)
		}
		m0[c] = label[x]
		gverts[label[x]] += g.chunks[c].size
	}
	g.pos, g.gverts = label, gverts
	g.counts = append(g.counts[:0], k, int(ng))
	if m2 == 0 {
		return
	}
	g.groupGraph(m0, int(ng))
	rng := uint64(0x5eed)
	cur, next := &g.h, &g.g
	for {
		nc := g.localMove(cur, m2, &rng)
		if nc == cur.n {
			return
		}
		g.counts = append(g.counts, nc)
		copy(g.newMap(cur.n), g.comm[:cur.n])
		g.aggregate(cur, next, nc)
		cur, next = next, cur
	}
}

// place places the vertices added since the last clustering, and the
// leaves that have children since, with at most capacity core vertices a
// chunk (see the package comment).
func (g *Graph) place(capacity int32) {
	for _, v := range g.promote {
		x := &g.verts[v]
		x.xdeg &^= isLeaf
		c := x.chunk
		g.changed = append(g.changed, c)
		if g.chunks[c].core < capacity {
			g.chunks[c].core++
			continue
		}
		g.chunks[c].size--
		x.chunk = g.newChunk(c)
	}
	g.promote = g.promote[:0]
	verts, last := g.verts, int32(-1) // last: the last chunk appended to changed
	if n := len(g.changed); n > 0 {
		last = g.changed[n-1]
	}
	for v := g.placed; v < len(verts); v++ {
		x := &verts[v]
		if x.parent < 0 {
			x.chunk = g.newChunk(-1)
			continue
		}
		c := verts[x.parent].chunk
		y := &g.chunks[c]
		switch {
		case x.xdeg&hasChildren == 0:
			x.xdeg |= isLeaf
		case y.core < capacity:
			y.core++
		default:
			x.chunk = g.newChunk(c)
			continue
		}
		x.chunk = c
		y.size++
		if c != last {
			g.changed = append(g.changed, c)
			last = c
		}
	}
	g.placed = len(verts)
}

// newChunk opens a chunk, a child of chunk parent (−1 for none), with one
// core vertex, and returns its number.
func (g *Graph) newChunk(parent int32) int32 {
	g.chunks = append(g.chunks, chunk{size: 1, core: 1, parent: parent})
	return int32(len(g.chunks) - 1)
}

// newMap appends a map of n nodes to g.maps and returns it.
func (g *Graph) newMap(n int) []int32 {
	p := len(g.maps)
	if p < cap(g.maps) {
		g.maps = g.maps[:p+1]
	} else {
		g.maps = append(g.maps, nil)
	}
	g.maps[p] = resize(g.maps[p], n)
	return g.maps[p]
}

// chunkGraph builds the graph of the chunks into g.g: a chunk of s
// vertices holds s−1 edges of the tree, and its root's edge joins it to
// its parent chunk; the extra edges join the chunks of their ends.
func (g *Graph) chunkGraph() {
	n := len(g.chunks)
	lg := &g.g
	lg.n = n
	lg.off = resize(lg.off, n+1)
	lg.self = resize(lg.self, n)
	lg.k = resize(lg.k, n)
	// Count the half-edges of each chunk into off[c+1].
	off := lg.off
	clear(off)
	for c := range g.chunks {
		x := &g.chunks[c]
		lg.self[c] = 2 * (x.size - 1)
		if x.parent >= 0 {
			off[c+1]++
			off[x.parent+1]++
		}
	}
	for i, u := range g.extraA {
		a, b := g.verts[u].chunk, g.verts[g.extraB[i]].chunk
		if a == b {
			lg.self[a] += 2
			continue
		}
		off[a+1]++
		off[b+1]++
	}
	for c := range n {
		lg.k[c] = float64(lg.self[c] + off[c+1])
		off[c+1] += off[c]
	}
	m := int(off[n])
	cur := resize(g.order, n)
	copy(cur, off[:n])
	adj, w := resize(lg.adj, m), resize(lg.w, m)
	for c := range g.chunks {
		if b := g.chunks[c].parent; b >= 0 {
			adj[cur[c]] = b
			cur[c]++
			adj[cur[b]] = int32(c)
			cur[b]++
		}
	}
	for i, u := range g.extraA {
		if a, b := g.verts[u].chunk, g.verts[g.extraB[i]].chunk; a != b {
			adj[cur[a]] = b
			cur[a]++
			adj[cur[b]] = a
			cur[b]++
		}
	}
	for e := range w {
		w[e] = 1
	}
	lg.adj, lg.w, g.order = adj, w, cur
}

// groupGraph builds the graph of the ng groups m0 of the chunks into g.h,
// as chunkGraph builds that of the chunks.
func (g *Graph) groupGraph(m0 []int32, ng int) {
	lg := &g.h
	lg.n = ng
	lg.off = resize(lg.off, ng+1)
	lg.self = resize(lg.self, ng)
	lg.k = resize(lg.k, ng)
	clear(lg.self)
	// The edges between groups, as pairs in cutA, cutB: in g.order and
	// g.touched.
	cutA, cutB := g.order[:0], g.touched[:0]
	for c := range g.chunks {
		x := &g.chunks[c]
		a := m0[c]
		lg.self[a] += 2 * (x.size - 1)
		if x.parent < 0 {
			continue
		}
		if b := m0[x.parent]; b == a {
			lg.self[a] += 2
		} else {
			cutA, cutB = append(cutA, a), append(cutB, b)
		}
	}
	for i, u := range g.extraA {
		a, b := m0[g.verts[u].chunk], m0[g.verts[g.extraB[i]].chunk]
		if a == b {
			lg.self[a] += 2
		} else {
			cutA, cutB = append(cutA, a), append(cutB, b)
		}
	}
	start := resize(g.cnt, ng+1)
	clear(start)
	for i, a := range cutA {
		start[a+1]++
		start[cutB[i]+1]++
	}
	for x := range ng {
		lg.k[x] = float64(lg.self[x] + start[x+1])
		start[x+1] += start[x]
	}
	cur := resize(g.queue, ng)
	copy(cur, start[:ng])
	raw := resize(g.comm, int(start[ng]))
	for i, a := range cutA {
		b := cutB[i]
		raw[cur[a]] = b
		cur[a]++
		raw[cur[b]] = a
		cur[b]++
	}
	// Merge the repeated edges of each row.
	adj, w := lg.adj[:0], lg.w[:0]
	mark := resize(g.pos, ng)
	lg.off[0] = 0
	for x := range ng {
		row := int32(len(adj))
		for _, y := range raw[start[x]:start[x+1]] {
			if p := mark[y]; p >= row && int(p) < len(adj) && adj[p] == y {
				w[p]++
				continue
			}
			mark[y] = int32(len(adj))
			adj, w = append(adj, y), append(w, 1)
		}
		lg.off[x+1] = int32(len(adj))
	}
	lg.adj, lg.w = adj, w
	g.order, g.touched, g.cnt, g.queue, g.comm, g.pos = cutA, cutB, start, cur, raw, mark
}

// moveGroups runs the local moving of the groups on the chunk graph g.g
// (see the package comment), from the groups of the last clustering, of
// the chunks changed since and those whose neighbours move; m2 is twice
// the total weight, capacity the most vertices of a group.
func (g *Graph) moveGroups(m2 float64, capacity int32) {
	lg := &g.g
	n := lg.n
	group, gsize, queued := g.group, g.gsize, g.queued
	tot := resize(g.tot, n)
	acc := resize(g.acc, n)
	clear(tot)
	clear(gsize)
	clear(acc)
	for c, x := range group {
		tot[x] += lg.k[c]
		gsize[x] += g.chunks[c].size
	}
	q := ring{buf: resize(g.queue, n), in: queued}
	for _, c := range g.changed {
		q.push(c)
	}
	touched := g.touched[:0]
	gamma := g.gamma
	for visits := 0; q.size > 0; visits++ {
		i := q.pop()
		if visits > 64*n {
			continue // a safety bound, far above what any graph needs
		}
		a := group[i]
		touched = lg.gather(i, group, acc, touched)
		ki, si := lg.k[i], g.chunks[i].size
		best, bestGain := bestMove(a, ki, touched, acc, tot, gamma, m2, gsize, si, capacity)
		// Or alone, in the group numbered as i if it is empty: groups
		// that have grown too large split.
		if a != i && gsize[i] == 0 {
			if gain := -float64(acc[a]) + gamma*ki*(tot[a]-ki)/m2; gain > bestGain {
				best = i
			}
		}
		if !move(i, a, best, ki, group, tot, acc, touched) {
			continue
		}
		gsize[a] -= si
		gsize[best] += si
		q.pushNeighbours(lg, i, group, best)
	}
	g.tot, g.acc, g.queue, g.touched = tot, acc, q.buf, touched
}

// A ring is a queue of nodes, first in first out, in buf, which has room
// for every node: in marks the nodes it holds, each at most once.
type ring struct {
	buf        []int32
	in         []bool
	head, size int
}

// push appends node j unless the ring holds it.
func (r *ring) push(j int32) {
	if r.in[j] {
		return
	}
	r.in[j] = true
	t := r.head + r.size
	if t >= len(r.buf) {
		t -= len(r.buf)
	}
	r.buf[t] = j
	r.size++
}

// pop removes and returns the first node; the ring is not empty.
func (r *ring) pop() int32 {
	i := r.buf[r.head]
	if r.head++; r.head == len(r.buf) {
		r.head = 0
	}
	r.size--
	r.in[i] = false
	return i
}

// pushNeighbours pushes the neighbours of node i of lg whose label is
// not best.
func (r *ring) pushNeighbours(lg *levelGraph, i int32, label []int32, best int32) {
	for _, j := range lg.adj[lg.off[i]:lg.off[i+1]] {
		if label[j] != best {
			r.push(j)
		}
	}
}

// gather adds to acc, by the label of its other end, the weight of each
// edge of node i of lg, and returns touched[:0] with the labels it
// reached, each once, in the order first reached. acc is 0 at those
// labels before; the caller clears them after.
func (lg *levelGraph) gather(i int32, label, acc, touched []int32) []int32 {
	touched = touched[:0]
	lo, hi := lg.off[i], lg.off[i+1]
	adj, w := lg.adj[lo:hi], lg.w[lo:hi]
	for e, j := range adj {
		c := label[j]
		a := &acc[c]
		if *a == 0 {
			touched = append(touched, c)
		}
		*a += w[e]
	}
	return touched
}

// bestMove returns the label c of touched, or a if none gains more than
// 1e-9·γ·ki/m2, to which moving a node of degree ki from label a raises
// the modularity most, and that gain: moving it to c changes the
// modularity by 2/m2 times acc[c] − acc[a] − γ·ki·(tot[c] − tot[a] + ki)/m2,
// where acc holds the weights of its edges to each label and tot the
// labels' total degrees. With sizes, it leaves out the labels c with
// sizes[c] + size over capacity.
func bestMove(a int32, ki float64, touched, acc []int32, tot []float64, gamma, m2 float64, sizes []int32, size, capacity int32) (int32, float64) {
	kiA, totA := acc[a], tot[a]-ki
	best, bestGain := a, 1e-9*gamma*ki/m2
	gk := gamma * ki // (γ·ki)·x, as the gain computes it
	for _, c := range touched {
		if c == a || sizes != nil && sizes[c]+size > capacity {
			continue
		}
		if gain := float64(acc[c]-kiA) - gk*(tot[c]-totA)/m2; gain > bestGain {
			best, bestGain = c, gain
		}
	}
	return best, bestGain
}

// move clears acc at the labels of touched, then moves node i, of degree
// ki, from label a to best, updating label and the labels' total degrees
// tot, and reports whether best is not a.
func move(i, a, best int32, ki float64, label []int32, tot []float64, acc, touched []int32) bool {
	for _, c := range touched {
		acc[c] = 0
	}
	if best == a {
		return false
	}
	label[i] = best
	tot[a] -= ki
	tot[best] += ki
	return true
}

// localMove runs Louvain's local moving on lg, from singletons, with the
// nodes first queued in a pseudo-random order drawn from rng; m2 is twice
// the total weight. It leaves the community of each node in g.comm,
// numbered 0, 1, … in the order of their first nodes, and returns their
// number.
func (g *Graph) localMove(lg *levelGraph, m2 float64, rng *uint64) int {
	n := lg.n
	comm := resize(g.comm, n)
	tot := resize(g.tot, n)
	queue := resize(g.queue, n)
	inQueue := resize(g.inQueue, n)
	acc := resize(g.acc, n)
	touched := g.touched[:0]
	clear(acc)
	for i := range n {
		comm[i], tot[i], queue[i], inQueue[i] = int32(i), lg.k[i], int32(i), true
	}
	// Fisher–Yates with SplitMix64.
	for i := n - 1; i > 0; i-- {
		*rng += 0x9e3779b97f4a7c15
		z := *rng
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
		j := int((z >> 32) * uint64(i+1) >> 32)
		queue[i], queue[j] = queue[j], queue[i]
	}
	gamma := g.gamma
	q := ring{buf: queue, in: inQueue, size: n}
	// A safety bound on the visits: each move raises the modularity,
	// and this many visits are far more than any graph here needs.
	for visits := 0; q.size > 0 && visits < 64*n+1024; visits++ {
		i := q.pop()
		a := comm[i]
		touched = lg.gather(i, comm, acc, touched)
		ki := lg.k[i]
		best, _ := bestMove(a, ki, touched, acc, tot, gamma, m2, nil, 0, 0)
		if !move(i, a, best, ki, comm, tot, acc, touched) {
			continue
		}
		q.pushNeighbours(lg, i, comm, best)
	}
	// Number the communities in the order of their first nodes.
	label := resize(g.pos, n)
	for i := range label {
		label[i] = -1
	}
	nc := int32(0)
	for i, c := range comm {
		if label[c] < 0 {
			label[c] = nc
			nc++
		}
		comm[i] = label[c]
	}
	g.comm, g.tot, g.queue, g.inQueue, g.acc, g.touched, g.pos = comm, tot, queue, inQueue, acc, touched, label
	return int(nc)
}

// aggregate builds into next the graph of the nc communities g.comm of
// cur's nodes.
func (g *Graph) aggregate(cur, next *levelGraph, nc int) {
	comm := g.comm[:cur.n]
	start := resize(g.cnt, nc+1)
	clear(start)
	for _, c := range comm {
		start[c+1]++
	}
	for c := 1; c <= nc; c++ {
		start[c] += start[c-1]
	}
	order := resize(g.order, cur.n)
	fill := resize(g.queue, nc)
	copy(fill, start[:nc])
	for i, c := range comm {
		order[fill[c]] = int32(i)
		fill[c]++
	}
	next.n = nc
	next.off = resize(next.off, nc+1)
	next.self = resize(next.self, nc)
	next.k = resize(next.k, nc)
	adj, w := next.adj[:0], next.w[:0]
	mark := resize(g.pos, nc)
	next.off[0] = 0
	for c := range int32(nc) {
		row := int32(len(adj))
		self, k := int32(0), 0.0
		for _, i := range order[start[c]:start[c+1]] {
			self += cur.self[i]
			k += cur.k[i]
			for e := cur.off[i]; e < cur.off[i+1]; e++ {
				d := comm[cur.adj[e]]
				if d == c {
					self += cur.w[e]
					continue
				}
				if p := mark[d]; p >= row && int(p) < len(adj) && adj[p] == d {
					w[p] += cur.w[e]
					continue
				}
				mark[d] = int32(len(adj))
				adj, w = append(adj, d), append(w, cur.w[e])
			}
		}
		next.off[c+1] = int32(len(adj))
		next.self[c], next.k[c] = self, k
	}
	next.adj, next.w = adj, w
	g.cnt, g.order, g.queue, g.pos = start, order, fill, mark
}

// Levels returns the number H ≥ 2 of levels of the last clustering, from
// the finest: 0 the chunks, 1 the groups, 2 to H−1 the passes of Louvain
// (see the package comment).
func (g *Graph) Levels() int { return len(g.counts) }

// Clustered returns the number of vertices of the last clustering: the
// vertices 0 to Clustered()−1.
func (g *Graph) Clustered() int { return g.clustered }

// Middle returns the level of the last clustering whose communities match
// in size those of the middle level of Louvain on the graph itself, which
// the chunks and the groups replace: the level whose mean community size
// (in vertices) is nearest, in ratio, to 2.7^(⌊h/2⌋+1), where h =
// round(log_2.7 s) + 2 and s is the mean community size of the coarsest
// level. Louvain from singletons merges about 2.7 communities into one a
// pass on a search tree, so it makes about h levels (gonum counts the
// last pass's twice), the middle one, ⌊h/2⌋, of that size (0 the first
// pass's).
func (g *Graph) Middle() int {
	H := len(g.counts)
	if H == 0 || g.clustered == 0 {
		return 0
	}
	logSize := func(l int) float64 { return math.Log(float64(g.clustered) / float64(g.counts[l])) }
	const ln27 = 0.99325177301028345 // ln 2.7
	h := int(math.Round(logSize(H-1)/ln27)) + 2
	target := float64(h/2+1) * ln27
	best := 0
	for l := range H {
		if math.Abs(logSize(l)-target) < math.Abs(logSize(best)-target) {
			best = l
		}
	}
	return best
}

// Select computes the communities of the last clustering at level l, 0 ≤
// l < Levels(), for Community, and returns the number of vertices in
// each, numbered from 0 (a slice of g's, until the next call). It takes
// O(K + G·l) time, K the chunks and G the groups.
func (g *Graph) Select(l int) []int32 {
	k := len(g.chunks)
	sel := resize(g.sel, k)
	if l == 0 {
		size := resize(g.selSize, k)
		for c := range size {
			sel[c], size[c] = int32(c), g.chunks[c].size
		}
		g.sel, g.selSize = sel, size
		return size
	}
	ng := len(g.gverts)
	selGroup := resize(g.selGroup, ng)
	for x := range selGroup {
		selGroup[x] = int32(x)
	}
	for _, m := range g.maps[1:l] {
		for x, c := range selGroup {
			selGroup[x] = m[c]
		}
	}
	size := resize(g.selSize, g.counts[l])
	clear(size)
	for x, c := range selGroup {
		size[c] += g.gverts[x]
	}
	for c, x := range g.maps[0] {
		sel[c] = selGroup[x]
	}
	g.selGroup, g.sel, g.selSize = selGroup, sel, size
	return size
}

// Community returns the community, at the level of the last Select, of
// vertex v < Clustered().
func (g *Graph) Community(v int32) int32 { return g.sel[g.verts[v].chunk] }

// Membership appends to dst the community at level l of each vertex of
// the last clustering, and returns it; it calls Select(l).
func (g *Graph) Membership(l int, dst []int32) []int32 {
	g.Select(l)
	for v := range g.clustered {
		dst = append(dst, g.Community(int32(v)))
	}
	return dst
}
