// Package cm implements the context models of Levin tree search with
// context models (LTS+CM; Orseau, Hutter & Lelis, IJCAI 2023): a policy
// that replaces the neural network by a log-linear model over local
// patterns around the agent, whose LTS loss is convex in its parameters.
//
// A domain lists the contexts of a state (Contexter): M mutex sets, each
// of which gives exactly one integer code in every state, such as the
// contents of one tile of cells at a fixed offset from the agent. A
// context is a pair (mutex set, code); each context the model knows has
// a row of A parameters β[c][·] in a Table, with ln εlow ≤ β ≤ 0. The
// policy of a state is the normalised product of the experts exp(β[c][·])
// of its known contexts (a softmax of their sum; unknown contexts are
// skipped), mixed with the uniform policy (Evaluator). The learner
// (Learner) keeps the latest solution of each problem and minimises the
// LTS loss Σ_k T_k/π(trajectory k) plus a quadratic regulariser over the
// box (Optimize); rows are created only for the contexts of solutions.
//
// The evaluator is policy-only (h = 0), for LevinTS. It is a
// search.EdgeEvaluator: the searches give it the edge that led to each
// state, so that a context set may depend on it (the reference's "last
// action" contexts); solutions give the learner the same edges. The
// search masks illegal actions without renormalising
// (search.Options.Renormalize false), as the training loss's full
// softmax assumes.
//
// Differences from the reference (google-deepmind/levintreesearch_cm):
// its search orders nodes by (d+1)/π where search.LevinTS uses d/π; it
// evaluates one node at a time, where the engine evaluates the children
// of several expansions together (search.Options.BatchSize, 32 by
// default) before it pushes them, which hides much of a sharp policy's
// guidance in searches of a few hundred expansions (BatchSize 1 is the
// reference's order); its optimiser stops on a duality gap measured
// against a "β-simplex", where Optimize measures the gap of the box it
// optimises over, a bound on F − min F.
package cm
