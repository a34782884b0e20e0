// Package model provides the networks of Orseau & Lelis (2021, appendix
// "Neural Network Architectures"), their losses, and their storage, and
// makes them the batched evaluators of package search.
//
// A network reads a domain's encoding of a state (C×H×W) through a trunk,
// then one or two branches of a dense layer of 128 with ReLU: the policy
// branch ends in a linear layer of one output per action and a
// log-softmax, the heuristic branch in one linear output. The trunk is
// the paper's (Config.Arch Conv), two convolutions of 32 filters of 2×2
// with ReLU over the image, or (ResNet) a fully connected residual
// network over the flattened encoding, for inputs that are not images or
// are too small for the convolutions. docs/MODEL_FORMAT.md describes the
// files of a saved network and its computation, for reimplementing it
// elsewhere.
package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/phs-go/phs/nn"
	"github.com/phs-go/phs/search"
)

// Heads says which outputs a network has.
type Heads int

// The heads.
const (
	Policy Heads = 1 << iota
	Heuristic
	Both = Policy | Heuristic
)

// String returns "policy", "heuristic" or "both".
func (h Heads) String() string {
	switch h {
	case Policy:
		return "policy"
	case Heuristic:
		return "heuristic"
	case Both:
		return "both"
	}
	return fmt.Sprintf("Heads(%d)", int(h))
}

// MarshalText encodes h as its String.
func (h Heads) MarshalText() ([]byte, error) {
	if h < Policy || h > Both {
		return nil, fmt.Errorf("model: bad heads %d", int(h))
	}
	return []byte(h.String()), nil
}

// UnmarshalText decodes "policy", "heuristic" or "both".
func (h *Heads) UnmarshalText(b []byte) error {
	for _, v := range []Heads{Policy, Heuristic, Both} {
		if string(b) == v.String() {
			*h = v
			return nil
		}
	}
	return fmt.Errorf("model: heads %q, want policy, heuristic or both", b)
}

// A Loss is the loss a head of a network is trained with.
type Loss int

// The losses.
const (
	// Levin is the policy loss of LevinTS and PHS: N·mean_t(−log
	// pi(a_t|s_t)) over a trajectory found with N expansions, whose
	// gradient is the paper's approximate gradient of the Levin cost.
	Levin Loss = iota + 1
	// CrossEntropy is the policy loss mean_t(−log pi(a_t|s_t)), PUCT's.
	CrossEntropy
	// SquaredError is the heuristic loss mean_t((h(s_t) − c_t)²) against
	// the cost-to-go c_t of each state of the trajectory.
	SquaredError
)

var lossNames = map[Loss]string{Levin: "levin", CrossEntropy: "cross-entropy", SquaredError: "squared-error"}

// String returns "levin", "cross-entropy" or "squared-error".
func (l Loss) String() string {
	if n, ok := lossNames[l]; ok {
		return n
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// MarshalText encodes l as its String.
func (l Loss) MarshalText() ([]byte, error) {
	if _, ok := lossNames[l]; !ok {
		return nil, fmt.Errorf("model: bad loss %d", int(l))
	}
	return []byte(l.String()), nil
}

// UnmarshalText decodes "levin", "cross-entropy" or "squared-error".
func (l *Loss) UnmarshalText(b []byte) error {
	for v, n := range lossNames {
		if string(b) == n {
			*l = v
			return nil
		}
	}
	return fmt.Errorf("model: loss %q, want levin, cross-entropy or squared-error", b)
}

// Arch is a network's architecture: the trunk that turns the encoded
// state into the features that the heads read.
type Arch int

// The architectures.
const (
	// Conv is the paper's trunk: two convolutions with ReLU over the C×H×W
	// image, flattened.
	Conv Arch = iota
	// ResNet is a fully connected residual network over the flattened
	// encoding: a dense layer of Units units with ReLU, then Blocks
	// residual blocks h ← ReLU(h + W₂·ReLU(W₁·h + b₁) + b₂) of Units units.
	ResNet
)

var archNames = map[Arch]string{Conv: "conv", ResNet: "resnet"}

// String returns "conv" or "resnet".
func (a Arch) String() string {
	if n, ok := archNames[a]; ok {
		return n
	}
	return fmt.Sprintf("Arch(%d)", int(a))
}

// MarshalText encodes a as its String.
func (a Arch) MarshalText() ([]byte, error) {
	if _, ok := archNames[a]; !ok {
		return nil, fmt.Errorf("model: bad architecture %d", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText decodes "conv" or "resnet".
func (a *Arch) UnmarshalText(b []byte) error {
	for v, n := range archNames {
		if string(b) == n {
			*a = v
			return nil
		}
	}
	return fmt.Errorf("model: architecture %q, want conv or resnet", b)
}

// HeadsFor returns the heads the network of alg needs: both for PHS
// (PHS*, PHS_h, safe pruning) and PUCT, the policy for LevinTS, the
// heuristic for A*, WA* and GBFS.
func HeadsFor(alg search.Algorithm) Heads {
	var h Heads
	if alg.NeedsPolicy() {
		h |= Policy
	}
	if alg.NeedsHeuristic() {
		h |= Heuristic
	}
	return h
}

// ConfigFor returns the configuration of the paper's network for alg on
// the problems of domain, whose states p encodes: the heads alg reads, the
// Levin loss for the policy (the cross-entropy for PUCT) and the squared
// error for the heuristic, p's input shape and number of actions, and the
// paper's architecture, Conv, with its sizes. For a ResNet, set Arch (and,
// for other sizes than the defaults, Units and Blocks).
func ConfigFor[S comparable](domain string, alg search.Algorithm, p search.Encoder[S]) Config {
	c, h, w := p.InputShape()
	cfg := Config{
		Domain: domain, Algorithm: alg, Heads: HeadsFor(alg),
		Channels: c, Height: h, Width: w, Actions: p.NumActions(),
	}
	if cfg.Heads&Policy != 0 {
		cfg.PolicyLoss = Levin
		if alg.IsPUCT() {
			cfg.PolicyLoss = CrossEntropy
		}
	}
	if cfg.Heads&Heuristic != 0 {
		cfg.HeuristicLoss = SquaredError
	}
	return cfg
}

// Limits on the sizes of a Config, which bound the memory of a network
// read from a file: at most MaxSize values in the input and in each layer's
// output, kernels of at most MaxKernel×MaxKernel, at most MaxBlocks
// residual blocks, and at most MaxParams parameters in all.
const (
	MaxSize   = 1 << 20
	MaxKernel = 16
	MaxBlocks = 64
	MaxParams = 1 << 26
)

// MaxShortenFound bounds Config.ShortenFound: 2^30 nodes, half a minute
// of stp.Problem.Shorten.
const MaxShortenFound = 1 << 30

// The default sizes, which the zero values of Config's sizes select.
const (
	DefaultFilters = 32
	DefaultKernel  = 2
	DefaultHidden  = 128
	DefaultUnits   = 128
	DefaultBlocks  = 2
)

// Config describes a network: what it was made for, its heads and losses,
// and its shape.
type Config struct {
	Domain string `json:"domain"`
	// Algorithm is the algorithm the network was trained for, with its
	// parameter: the default algorithm of searches with the network.
	// config.json holds its text form (search.Algorithm.MarshalText:
	// "wastar:3", "puct:1", "phsh"); a plain "wastar" or "puct", as files
	// of before the parameter was recorded say, reads as the algorithm
	// with search.DefaultW or search.DefaultC.
	Algorithm search.Algorithm `json:"algorithm"`
	Heads     Heads            `json:"heads"`
	// PolicyLoss is the loss of the policy head, Levin or CrossEntropy;
	// HeuristicLoss that of the heuristic head, SquaredError. Each is 0
	// exactly when the network lacks the head.
	PolicyLoss    Loss `json:"policy_loss,omitempty"`
	HeuristicLoss Loss `json:"heuristic_loss,omitempty"`
	// Channels, Height and Width are the shape of the input.
	Channels int `json:"channels"`
	Height   int `json:"height"`
	Width    int `json:"width"`
	// Actions is the number of policy outputs.
	Actions int `json:"actions"`
	// Arch is the trunk: Conv, the default (config.json omits it, and a
	// file without the field is a Conv network), or ResNet ("resnet").
	Arch Arch `json:"arch,omitempty"`
	// Filters and Kernel are the convolutions' filters and kernel size,
	// for Conv only; 0 means DefaultFilters and DefaultKernel.
	Filters int `json:"filters,omitempty"`
	Kernel  int `json:"kernel,omitempty"`
	// Units and Blocks are the number of units of each layer of the
	// trunk and the number of residual blocks, for ResNet only; 0 means
	// DefaultUnits and DefaultBlocks.
	Units  int `json:"units,omitempty"`
	Blocks int `json:"blocks,omitempty"`
	// Hidden is the width of the heads' hidden layers; 0 means
	// DefaultHidden.
	Hidden int `json:"hidden"`
	// PruneDeadlocks says that the network was trained on problems with
	// their deadlocks pruned (phs -prune-deadlocks, Sokoban): searches
	// with it prune them too.
	PruneDeadlocks bool `json:"prune_deadlocks,omitempty"`
	// Floor says that the network's heuristic is read floored at the
	// problem's own (search.Heuristic), which must be a lower bound on
	// the cost to the goal, such as the Manhattan distance or a pattern
	// database: its Evaluator gives max(h of the network, h of the
	// problem) (search.HeuristicFloor), in training (phs train -floor) as
	// in the searches with it. It needs a heuristic head, and problems
	// that implement search.Heuristic (Evaluator.Check).
	Floor bool `json:"floor,omitempty"`
	// ShortenFound is the most nodes of the domain's own pass that
	// shortens each solution that a search with the network finds (phs
	// solve and test -shorten-found; a bootstrap.Shortener, such as
	// stp.Problem.Shorten), from 0 (no pass) to MaxShortenFound: the
	// searches the network was tuned with end with it.
	ShortenFound int `json:"shorten_found,omitempty"`
	// Search holds the search options the network was trained and tuned
	// with (phs train records its run's, less the machine's limits
	// Timeout and MaxMemory). Searches with the network take its
	// Temperature and Mix unless told otherwise. They must be valid for
	// Algorithm (search.Options.Validate); config.json files written
	// before this field read their top-level "temperature" and "mix" into
	// it.
	Search search.Options `json:"search,omitzero"`
	// Meta is free-form metadata, such as how the network was trained.
	Meta map[string]string `json:"meta,omitempty"`
}

// defaults fills in the default sizes of c, and returns an error if a
// field is out of range.
func (c *Config) defaults() error {
	if c.Hidden == 0 {
		c.Hidden = DefaultHidden
	}
	switch c.Arch {
	case Conv:
		if c.Filters == 0 {
			c.Filters = DefaultFilters
		}
		if c.Kernel == 0 {
			c.Kernel = DefaultKernel
		}
	case ResNet:
		if c.Units == 0 {
			c.Units = DefaultUnits
		}
		if c.Blocks == 0 {
			c.Blocks = DefaultBlocks
		}
	}
	if err := c.check(); err != nil {
		return err
	}
	if n := c.numParams(); n > MaxParams {
		return fmt.Errorf("%d parameters; want at most %d", n, MaxParams)
	}
	return nil
}

// numParams returns the number of parameters of the network of c, whose
// sizes must be in range.
func (c *Config) numParams() int {
	var n, feat int
	switch c.Arch {
	case Conv:
		k2 := c.Kernel * c.Kernel
		n = c.Filters*c.Channels*k2 + c.Filters*c.Filters*k2 + 2*c.Filters
		feat = c.Filters * (c.Height - 2*(c.Kernel-1)) * (c.Width - 2*(c.Kernel-1))
	case ResNet:
		n = (c.Channels*c.Height*c.Width+1)*c.Units + c.Blocks*2*(c.Units+1)*c.Units
		feat = c.Units
	}
	if c.Heads&Policy != 0 {
		n += (feat+1)*c.Hidden + (c.Hidden+1)*c.Actions
	}
	if c.Heads&Heuristic != 0 {
		n += (feat+1)*c.Hidden + c.Hidden + 1
	}
	return n
}

// check returns an error if a field of c, with its defaults filled in, is
// out of range.
func (c *Config) check() error {
	hasPolicy, hasHeuristic := c.Heads&Policy != 0, c.Heads&Heuristic != 0
	switch {
	case c.Heads < Policy || c.Heads > Both:
		return fmt.Errorf("bad heads %d", int(c.Heads))
	case hasPolicy && c.PolicyLoss != Levin && c.PolicyLoss != CrossEntropy:
		return fmt.Errorf("policy loss %v; want levin or cross-entropy", c.PolicyLoss)
	case !hasPolicy && c.PolicyLoss != 0:
		return fmt.Errorf("a policy loss (%v) without a policy head", c.PolicyLoss)
	case hasHeuristic && c.HeuristicLoss != SquaredError:
		return fmt.Errorf("heuristic loss %v; want squared-error", c.HeuristicLoss)
	case !hasHeuristic && c.HeuristicLoss != 0:
		return fmt.Errorf("a heuristic loss (%v) without a heuristic head", c.HeuristicLoss)
	case c.Channels < 1 || c.Height < 1 || c.Width < 1 || c.Channels > MaxSize || c.Height > MaxSize || c.Width > MaxSize ||
		c.Channels*c.Height*c.Width > MaxSize:
		return fmt.Errorf("input shape %dx%dx%d; want positive sizes of at most %d values", c.Channels, c.Height, c.Width, MaxSize)
	case c.Actions < 1 || c.Actions > 255:
		return fmt.Errorf("%d actions; want 1 to 255", c.Actions)
	case c.Arch != Conv && c.Arch != ResNet:
		return fmt.Errorf("bad architecture %d", int(c.Arch))
	case c.Arch == Conv && (c.Units != 0 || c.Blocks != 0):
		return fmt.Errorf("units %d and blocks %d in a conv network; they are for resnet", c.Units, c.Blocks)
	case c.Arch == ResNet && (c.Filters != 0 || c.Kernel != 0):
		return fmt.Errorf("filters %d and kernel %d in a resnet network; they are for conv", c.Filters, c.Kernel)
	case c.Arch == Conv && (c.Kernel < 1 || c.Kernel > MaxKernel):
		return fmt.Errorf("kernel %d; want 1 to %d", c.Kernel, MaxKernel)
	case c.Arch == Conv && (c.Height-2*(c.Kernel-1) < 1 || c.Width-2*(c.Kernel-1) < 1):
		return fmt.Errorf("input %dx%d too small for two %dx%d convolutions (the resnet architecture takes any input)", c.Height, c.Width, c.Kernel, c.Kernel)
	case c.Arch == Conv && (c.Filters < 1 || c.Filters > MaxSize || c.Filters*c.Height*c.Width > MaxSize):
		return fmt.Errorf("%d filters; want 1 to %d values per layer output", c.Filters, MaxSize)
	case c.Arch == ResNet && (c.Units < 1 || c.Units > MaxSize):
		return fmt.Errorf("units %d; want 1 to %d", c.Units, MaxSize)
	case c.Arch == ResNet && (c.Blocks < 1 || c.Blocks > MaxBlocks):
		return fmt.Errorf("%d blocks; want 1 to %d", c.Blocks, MaxBlocks)
	case c.Hidden < 1 || c.Hidden > MaxSize:
		return fmt.Errorf("hidden %d; want 1 to %d", c.Hidden, MaxSize)
	case !hasPolicy && c.Search.Temperature != 0:
		return fmt.Errorf("a temperature (%g) without a policy head", c.Search.Temperature)
	case !hasPolicy && c.Search.Mix != 0:
		return fmt.Errorf("a mix (%g) without a policy head", c.Search.Mix)
	case !hasHeuristic && c.Floor:
		return errors.New("a floor without a heuristic head")
	case c.ShortenFound < 0 || c.ShortenFound > MaxShortenFound:
		return fmt.Errorf("shorten_found %d; want 0 to %d", c.ShortenFound, MaxShortenFound)
	}
	if err := c.Search.Validate(c.Algorithm); err != nil {
		return fmt.Errorf("search options: %w", err)
	}
	return nil
}

// A Model is a network. Its weights may be read by several goroutines at
// once (through Evaluators), as long as none trains it at the same time.
type Model struct {
	cfg Config
	// The trunk: conv1 and conv2 for Conv; in and blocks for ResNet.
	conv1, conv2 *nn.Conv2D
	in           *nn.Dense
	blocks       []block
	// The branches; nil for a head the network does not have.
	pol1, pol2, heu1, heu2 *nn.Dense
	// hidden computes the first layers of the branches in one product: the
	// Stack of pol1 and heu1, or the one of them the network has. Its
	// output rows hold the policy's hidden units, then the heuristic's.
	hidden *nn.Dense
	params []*nn.Param
	// noDigest is set by Load for files without a digest (NoDigest).
	noDigest bool
	// gen counts the changes of the weights by CopyWeightsFrom and by a
	// Trainer: an Evaluator renews what it keeps of them when it changes.
	gen uint64
}

// NoDigest reports whether m was read (Load, LoadFS, LoadTrainer) from
// files written without the SHA-256 of their tensors, before phs
// recorded it: a config.json without weights_sha256, or an
// optimizer.safetensors without its own. Such files load unchecked, and a
// caller should warn that corruption cannot be detected; Save writes the
// digests. It is false for a model made otherwise (New, Clone).
func (m *Model) NoDigest() bool { return m.noDigest }

// A block is a residual block of a ResNet trunk: h ← ReLU(h + fc2(ReLU(fc1(h)))).
type block struct{ fc1, fc2 *nn.Dense }

// Validate returns an error if New would refuse cfg: a field out of
// range (with the defaults of its zero sizes), a size of the wrong
// architecture, or more than MaxParams parameters.
func (c Config) Validate() error {
	if err := c.defaults(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// New returns a network with weights initialised from seed.
func New(cfg Config, seed uint64) (*Model, error) {
	if err := cfg.defaults(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return newModel(cfg, rand.New(rand.NewPCG(seed, 0x6d6f64656c))), nil
}

// newModel returns a network of cfg, which must be valid, with weights
// initialised from rng, or zero if rng is nil.
func newModel(cfg Config, rng *rand.Rand) *Model {
	m := &Model{cfg: cfg}
	var feat int
	switch cfg.Arch {
	case Conv:
		m.conv1 = nn.NewConv2D("conv1", rng, cfg.Channels, cfg.Height, cfg.Width, cfg.Filters, cfg.Kernel)
		m.conv2 = nn.NewConv2D("conv2", rng, cfg.Filters, m.conv1.OutH(), m.conv1.OutW(), cfg.Filters, cfg.Kernel)
		m.params = []*nn.Param{m.conv1.Weight, m.conv1.Bias, m.conv2.Weight, m.conv2.Bias}
		feat = cfg.Filters * m.conv2.OutH() * m.conv2.OutW()
	case ResNet:
		m.in = nn.NewDense("input", rng, cfg.Channels*cfg.Height*cfg.Width, cfg.Units)
		m.params = []*nn.Param{m.in.Weight, m.in.Bias}
		for i := range cfg.Blocks {
			name := fmt.Sprintf("blocks.%d.", i)
			b := block{nn.NewDense(name+"fc1", rng, cfg.Units, cfg.Units), nn.NewDense(name+"fc2", rng, cfg.Units, cfg.Units)}
			m.blocks = append(m.blocks, b)
			m.params = append(m.params, b.fc1.Weight, b.fc1.Bias, b.fc2.Weight, b.fc2.Bias)
		}
		feat = cfg.Units
	}
	if cfg.Heads&Policy != 0 {
		m.pol1 = nn.NewDense("policy1", rng, feat, cfg.Hidden)
		m.pol2 = nn.NewDense("policy2", rng, cfg.Hidden, cfg.Actions)
	}
	if cfg.Heads&Heuristic != 0 {
		m.heu1 = nn.NewDense("heuristic1", rng, feat, cfg.Hidden)
		m.heu2 = nn.NewDense("heuristic2", rng, cfg.Hidden, 1)
	}
	switch {
	case m.pol1 != nil && m.heu1 != nil:
		m.hidden = nn.Stack("hidden", m.pol1, m.heu1)
	case m.pol1 != nil:
		m.hidden = m.pol1
	default:
		m.hidden = m.heu1
	}
	for _, d := range []*nn.Dense{m.pol1, m.pol2, m.heu1, m.heu2} {
		if d != nil {
			m.params = append(m.params, d.Weight, d.Bias)
		}
	}
	return m
}

// Config returns the network's configuration.
func (m *Model) Config() Config { return m.cfg }

// Params returns the network's parameters in a fixed order: the trunk's,
// then the policy branch's two dense layers and the heuristic branch's,
// weight before bias. The trunk is conv1 and conv2 for Conv, and for
// ResNet input, then blocks.0.fc1, blocks.0.fc2, blocks.1.fc1 and so on.
// Each has its real shape, PyTorch's: [Filters, in, Kernel, Kernel] for a
// convolution's weight (in is Channels for conv1, Filters for conv2),
// [out, in] for a dense layer's, [out] for a bias. The slice is the
// model's own; do not modify it. While Evaluators of m are in use, change
// the values only through a Trainer or CopyWeightsFrom: an Evaluator keeps
// a copy of a ResNet's input layer, which it renews after those.
func (m *Model) Params() []*nn.Param { return m.params }

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := newModel(m.cfg, nil)
	c.CopyWeightsFrom(m)
	return c
}

// CopyWeightsFrom copies the weights of src, which must have the same
// architecture, into m, allocating nothing. It panics if the architectures
// differ.
func (m *Model) CopyWeightsFrom(src *Model) {
	dst, from := m.Params(), src.Params()
	if len(dst) != len(from) {
		panic("model: CopyWeightsFrom: different architectures")
	}
	for i, p := range dst {
		if len(p.Data) != len(from[i].Data) {
			panic("model: CopyWeightsFrom: different architectures")
		}
		copy(p.Data, from[i].Data)
	}
	m.gen++
}

// Check returns an error unless m was made for domain and inputs of
// c×h×w.
func (m *Model) Check(domain string, c, h, w int) error {
	if m.cfg.Domain != domain {
		return fmt.Errorf("model: the model is for the %s domain, not %s", m.cfg.Domain, domain)
	}
	if m.cfg.Channels != c || m.cfg.Height != h || m.cfg.Width != w {
		return fmt.Errorf("model: the model takes inputs of %dx%dx%d, the problems give %dx%dx%d",
			m.cfg.Channels, m.cfg.Height, m.cfg.Width, c, h, w)
	}
	return nil
}

// A workspace holds the activations and gradients of a pass over a batch.
type workspace struct {
	n int
	// Conv's trunk.
	col1, a1, col2, a2, flat []float32
	dflat, da2, da1, dcol    []float32
	// ResNet's trunk: res holds, for a batch of n, the activations h_0,
	// r_0, h_1, r_1, …, h_B of n·Units values each, h_b the input of block
	// b and r_b the output of its first layer; rt is the scratch of the
	// layers' products; dh, dg and dr are gradients of n·Units values.
	res, rt, dh, dg, dr []float32
	// The heads.
	hid, hidT, logits, hout []float32
	dhid, dlogits, dhout    []float32
	// A pass over one-hot inputs (oneHot: the last forward pass read rows,
	// not x): the inputs' ones, and the input layer's weight and its
	// gradient transposed; for Conv, conv1's one-hot im2col and scratch.
	oneHot    bool
	rows      nn.OneHotRows
	inT, dinT []float32
	cols      nn.OneHotRows
	t1        []float32
}

// grow sizes w for batches of n.
func (w *workspace) grow(m *Model, n int) {
	if n <= w.n {
		return
	}
	n = max(n, 2*w.n)
	c := m.cfg
	f := func(k int) []float32 { return make([]float32, k) }
	*w = workspace{n: n, rows: w.rows, inT: w.inT, dinT: w.dinT, cols: w.cols, t1: w.t1,
		hid: f(n * m.hidden.Out), hidT: f(n * m.hidden.Out), logits: f(n * c.Actions), hout: f(n),
		dhid: f(n * m.hidden.Out), dlogits: f(n * c.Actions), dhout: f(n),
	}
	switch c.Arch {
	case Conv:
		p1 := m.conv1.OutH() * m.conv1.OutW()
		p2 := m.conv2.OutH() * m.conv2.OutW()
		flat := c.Filters * p2
		w.col1, w.a1 = f(m.conv1.ColSize(n)), f(c.Filters*n*p1)
		w.col2, w.a2, w.flat = f(m.conv2.ColSize(n)), f(c.Filters*n*p2), f(n*flat)
		w.dflat, w.da2, w.da1 = f(n*flat), f(c.Filters*n*p2), f(c.Filters*n*p1)
		w.dcol = f(max(m.conv1.ColSize(n), m.conv2.ColSize(n)))
	case ResNet:
		nw := n * c.Units
		w.res, w.rt = f((2*c.Blocks+1)*nw), f(nw)
		w.dh, w.dg, w.dr = f(nw), f(nw), f(nw)
	}
}

// heuristicCol is the column of the heuristic's first hidden unit in the
// rows of hidden's output.
func (m *Model) heuristicCol() int {
	if m.pol1 != nil {
		return m.pol1.Out
	}
	return 0
}

// forward runs the network on n inputs x (NCHW); the log-policy goes to
// w.logits, the heuristic to w.hout.
func (m *Model) forward(w *workspace, x []float32, n int) {
	w.grow(m, n)
	w.oneHot = false
	var feat []float32
	if m.cfg.Arch == ResNet {
		m.in.ForwardReLU(x, n, m.resAct(w, n, 0), w.rt)
		feat = m.resBlocks(w, n)
	} else {
		feat = m.convForward(w, x, n)
	}
	m.heads(w, feat, n)
}

// inputT returns the weight of the network's input layer transposed,
// the argument of forwardOneHot, in dst if it has room.
func (m *Model) inputT(dst []float32) []float32 {
	if m.cfg.Arch == ResNet {
		return m.in.TransposeWeight(dst)
	}
	return m.conv1.TransposeWeight(dst)
}

// forwardOneHot is forward on the inputs w.rows, given w.inT, the weight
// of the input layer transposed (inputT).
func (m *Model) forwardOneHot(w *workspace) {
	n := w.rows.Len()
	w.grow(m, n)
	w.oneHot = true
	var feat []float32
	if m.cfg.Arch == ResNet {
		m.in.ForwardOneHotReLU(&w.rows, w.inT, m.resAct(w, n, 0))
		feat = m.resBlocks(w, n)
	} else {
		k := m.cfg.Filters * n * m.conv1.OutH() * m.conv1.OutW()
		w.t1 = slices.Grow(w.t1[:0], k)[:k]
		m.conv1.ForwardOneHotReLU(&w.rows, &w.cols, w.inT, w.a1, w.t1)
		feat = m.convRest(w, n)
	}
	m.heads(w, feat, n)
}

// heads runs the branches on the features of n inputs, one row each.
func (m *Model) heads(w *workspace, feat []float32, n int) {
	c := m.cfg
	ld := m.hidden.Out
	hid := w.hid[:n*ld]
	m.hidden.ForwardReLU(feat, n, hid, w.hidT)
	if m.pol1 != nil {
		m.pol2.ForwardStrided(hid, ld, n, w.logits)
		nn.LogSoftmax(w.logits[:n*c.Actions], c.Actions)
	}
	if m.heu1 != nil {
		m.heu2.ForwardStrided(hid[m.heuristicCol():], ld, n, w.hout)
	}
}

// convForward runs the Conv trunk on n inputs x and returns its features,
// one row per sample.
func (m *Model) convForward(w *workspace, x []float32, n int) []float32 {
	m.conv1.ForwardReLU(x, nn.NCHW, n, w.a1[:m.cfg.Filters*n*m.conv1.OutH()*m.conv1.OutW()], w.col1)
	return m.convRest(w, n)
}

// convRest runs the Conv trunk past conv1, whose output for n inputs is
// in w.a1, and returns its features, one row per sample.
func (m *Model) convRest(w *workspace, n int) []float32 {
	c := m.cfg
	p1 := m.conv1.OutH() * m.conv1.OutW()
	p2 := m.conv2.OutH() * m.conv2.OutW()
	a1 := w.a1[:c.Filters*n*p1]
	a2 := w.a2[:c.Filters*n*p2]
	m.conv2.ForwardReLU(a1, nn.CNHW, n, a2, w.col2)
	// Flatten CNHW to one row per sample.
	flat := c.Filters * p2
	for ch := range c.Filters {
		for s := range n {
			copy(w.flat[s*flat+ch*p2:s*flat+(ch+1)*p2], a2[(ch*n+s)*p2:(ch*n+s+1)*p2])
		}
	}
	return w.flat[:n*flat]
}

// resAct returns activation i of w.res for a batch of n: h_b is i = 2b,
// r_b is i = 2b+1.
func (m *Model) resAct(w *workspace, n, i int) []float32 {
	nw := n * m.cfg.Units
	return w.res[i*nw : (i+1)*nw]
}

// resBlocks runs the residual blocks of the ResNet trunk on h_0, the
// output of its input layer for n inputs, and returns its features, h_B,
// one row per sample.
func (m *Model) resBlocks(w *workspace, n int) []float32 {
	h := m.resAct(w, n, 0)
	for b, blk := range m.blocks {
		r, next := m.resAct(w, n, 2*b+1), m.resAct(w, n, 2*b+2)
		blk.fc1.ForwardReLU(h, n, r, w.rt)
		blk.fc2.ForwardResidualReLU(r, h, n, next, w.rt)
		h = next
	}
	return h
}

// backward accumulates the parameters' gradients of a loss whose gradient
// with respect to the log-policy is in w.dlogits and with respect to the
// heuristic in w.dhout, after forward on the same x and n, or after
// forwardOneHot on w.rows.
func (m *Model) backward(w *workspace, x []float32, n int) {
	c := m.cfg
	ld := m.hidden.Out
	hid, dhid := w.hid[:n*ld], w.dhid[:n*ld]
	if m.pol1 != nil {
		dl := w.dlogits[:n*c.Actions]
		nn.LogSoftmaxBackward(w.logits[:n*c.Actions], dl, c.Actions)
		m.pol2.BackwardStrided(hid, ld, n, dl, dhid)
	}
	if m.heu1 != nil {
		k := m.heuristicCol()
		m.heu2.BackwardStrided(hid[k:], ld, n, w.dhout[:n], dhid[k:])
	}
	nn.ReLUBackward(hid, dhid)
	if c.Arch == ResNet {
		dfeat := w.dg[:n*c.Units]
		m.hidden.Backward(m.resAct(w, n, 2*c.Blocks), n, dhid, dfeat)
		m.resBackward(w, x, n, dfeat)
		return
	}
	dflat := w.dflat[:n*m.hidden.In]
	m.hidden.Backward(w.flat, n, dhid, dflat)
	m.convBackward(w, x, n, dflat)
}

// convBackward accumulates the gradients of the Conv trunk's parameters
// from dflat, the gradient of its features.
func (m *Model) convBackward(w *workspace, x []float32, n int, dflat []float32) {
	c := m.cfg
	p1 := m.conv1.OutH() * m.conv1.OutW()
	p2 := m.conv2.OutH() * m.conv2.OutW()
	flat := c.Filters * p2
	da2 := w.da2[:c.Filters*n*p2]
	for ch := range c.Filters {
		for s := range n {
			copy(da2[(ch*n+s)*p2:(ch*n+s+1)*p2], dflat[s*flat+ch*p2:s*flat+(ch+1)*p2])
		}
	}
	nn.ReLUBackward(w.a2[:c.Filters*n*p2], da2)
	da1 := w.da1[:c.Filters*n*p1]
	m.conv2.Backward(w.a1, nn.CNHW, n, da2, da1, w.col2, w.dcol)
	nn.ReLUBackward(w.a1[:c.Filters*n*p1], da1)
	if w.oneHot {
		k := m.conv1.InC * m.conv1.K * m.conv1.K * m.conv1.OutC
		w.dinT = slices.Grow(w.dinT[:0], k)[:k]
		m.conv1.BackwardOneHot(&w.cols, da1, w.t1, w.dinT)
		return
	}
	m.conv1.Backward(x, nn.NCHW, n, da1, nil, w.col1, w.dcol)
}

// resBackward accumulates the gradients of the ResNet trunk's parameters
// from g, the gradient of its features, which it overwrites.
func (m *Model) resBackward(w *workspace, x []float32, n int, g []float32) {
	nw := n * m.cfg.Units
	dh, dr := w.dh[:nw], w.dr[:nw]
	for b := len(m.blocks) - 1; b >= 0; b-- {
		blk := m.blocks[b]
		h, r, next := m.resAct(w, n, 2*b), m.resAct(w, n, 2*b+1), m.resAct(w, n, 2*b+2)
		// g becomes the gradient of the block's sum h + fc2(r), which
		// reaches both h (the skip) and fc2.
		nn.ReLUBackward(next, g)
		blk.fc2.Backward(r, n, g, dr)
		nn.ReLUBackward(r, dr)
		blk.fc1.Backward(h, n, dr, dh)
		for i, v := range g {
			dh[i] += v
		}
		g, dh = dh, g
	}
	nn.ReLUBackward(m.resAct(w, n, 0), g)
	if w.oneHot {
		w.dinT = slices.Grow(w.dinT[:0], m.in.In*m.in.Out)[:m.in.In*m.in.Out]
		m.in.BackwardOneHot(&w.rows, g, w.dinT)
		return
	}
	m.in.Backward(x, n, g, nil)
}

// A configFile is what config.json holds: the Config, and the digest of
// the tensors of weights.safetensors (safetensors.Digest).
type configFile struct {
	Config
	WeightsSHA256 string `json:"weights_sha256,omitempty"`
	// The options of files written before Config.Search.
	Temperature float64 `json:"temperature,omitempty"`
	Mix         float64 `json:"mix,omitempty"`
}

// config returns f's Config, with the options of an earlier file moved
// into its Search.
func (f *configFile) config() (Config, error) {
	c := f.Config
	if f.Temperature == 0 && f.Mix == 0 {
		return c, nil
	}
	if c.Search != (search.Options{}) {
		return c, errors.New(`"temperature" or "mix" beside "search", which holds them`)
	}
	c.Search.Temperature, c.Search.Mix = f.Temperature, f.Mix
	return c, nil
}

// configJSON encodes cfg and the digest of the weights for config.json.
func configJSON(cfg Config, weightsSHA256 string) ([]byte, error) {
	b, err := json.MarshalIndent(configFile{Config: cfg, WeightsSHA256: weightsSHA256}, "", "  ")
	return append(b, '\n'), err
}
