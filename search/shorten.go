package search

// An edge is an edge of the search graph that the tree leaves out: a child
// of node from, by action, whose state was the state of node to already.
type edge struct {
	from, to int32
	action   uint8
}

// dropped records that node i, by action a, generated the state of node
// old, which the tree holds already: an edge for Options.Shorten.
func (e *bestFirst[S]) dropped(i int32, a int, old int32) {
	if old != i {
		e.edges = append(e.edges, edge{from: i, to: old, action: uint8(a)})
	}
}

// shortestPath returns the nodes of a shortest path from the root to node
// leaf over the edges of the tree and e.edges, root first, or nil if the
// tree's own path is as short. Every node of the arena but the root has
// its tree edge from its parent.
func (e *bestFirst[S]) shortestPath(leaf int32) (path []int32, actions []int) {
	n := e.n
	if len(e.edges) == 0 {
		return nil, nil
	}
	// Out-edges in compressed rows: the tree's (child i of parent(i)) and
	// the dropped ones.
	start := make([]int32, n+1)
	for i := 1; i < n; i++ {
		start[e.node(int32(i)).parent+1]++
	}
	for _, d := range e.edges {
		start[d.from+1]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	type arc struct {
		to     int32
		action uint8
	}
	arcs := make([]arc, start[n])
	fill := make([]int32, n)
	copy(fill, start[:n])
	for i := 1; i < n; i++ {
		nd := e.node(int32(i))
		arcs[fill[nd.parent]] = arc{int32(i), uint8(nd.action())}
		fill[nd.parent]++
	}
	for _, d := range e.edges {
		arcs[fill[d.from]] = arc{d.to, d.action}
		fill[d.from]++
	}
	// Breadth-first from the root; prev[i] is the arc into i, as the
	// index of its source and its action, -1 for unreached.
	prev := make([]int32, n)
	act := make([]uint8, n)
	dist := make([]int32, n)
	for i := range prev {
		prev[i] = -1
	}
	prev[0] = 0
	queue := make([]int32, 1, n)
	for len(queue) > 0 && prev[leaf] < 0 {
		v := queue[0]
		queue = queue[1:]
		for _, a := range arcs[start[v]:start[v+1]] {
			if prev[a.to] >= 0 {
				continue
			}
			prev[a.to], act[a.to], dist[a.to] = v, a.action, dist[v]+1
			queue = append(queue, a.to)
		}
	}
	if uint32(dist[leaf]) >= e.node(leaf).depth() {
		return nil, nil
	}
	k := int(dist[leaf])
	path, actions = make([]int32, k+1), make([]int, k)
	for v, j := leaf, k; j >= 0; v, j = prev[v], j-1 {
		path[j] = v
		if j > 0 {
			actions[j-1] = int(act[v])
		}
	}
	return path, actions
}

// pathSolution fills res with the path of nodes path, root first, and the
// actions between them, a shortest path to a goal.
func (e *bestFirst[S]) pathSolution(path []int32, actions []int, res *Result[S]) {
	steps := len(actions)
	res.Cost = float64(steps) * e.opts.NodeLoss
	t := &Trajectory[S]{
		States:     make([]S, steps),
		Actions:    actions,
		LogPi:      make([]float64, steps),
		Expansions: res.Expansions,
		NodeLoss:   e.opts.NodeLoss,
	}
	for j, a := range actions {
		t.States[j], _, t.LogPi[j] = e.step(path[j], a)
	}
	res.Actions = t.Actions
	res.Trajectory = t
}
