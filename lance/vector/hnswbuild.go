package vector

import (
	"container/heap"
	"context"
	"math"
	"math/rand/v2"
	"sort"
)

// HNSW build parameters: the reference's defaults (HnswBuildParams).
const (
	DefaultHNSWM              = 20
	DefaultHNSWEfConstruction = 150
	DefaultHNSWMaxLevel       = 7
)

type hnswParams struct {
	m, efc, maxLevel int
}

// hnswGraph is a built HNSW graph over local ids 0..n-1: adj[i][l] are the
// neighbours of node i on level l, nearest first, with their distances
// (what the reference writes to __neighbors and _distance). Node 0 is the
// entry point and lives on every level, as the reference's builder puts
// it; node i lives on levels 0..len(adj[i])-1.
type hnswGraph struct {
	adj [][][]node
}

// hnswBuilder holds one partition's graph under construction.
type hnswBuilder struct {
	p     hnswParams
	dist  func(a, b uint32) float32
	adj   [][][]node
	seen  []uint32 // visit marks by generation, reused across searches
	epoch uint32
}

// buildHNSW builds the graph of n nodes whose pairwise distances dist
// gives, inserting nodes 1..n-1 in order after the entry point 0 (the
// reference inserts in parallel; sequential insertion makes the graph a
// function of the seed). Levels are drawn as the paper's Algorithm 1 with
// mL = 1/ln(m), capped at maxLevel-1.
func buildHNSW(ctx context.Context, n int, dist func(a, b uint32) float32, p hnswParams, seed uint64) (*hnswGraph, error) {
	b := &hnswBuilder{p: p, dist: dist, adj: make([][][]node, n), seen: make([]uint32, n)}
	if n == 0 {
		return &hnswGraph{}, nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	ml := 1 / math.Log(float64(p.m))
	b.adj[0] = make([][]node, p.maxLevel)
	for i := 1; i < n; i++ {
		u := 1 - rng.Float64() // (0, 1]
		lvl := min(int(-math.Log(u)*ml), p.maxLevel-1)
		b.adj[i] = make([][]node, lvl+1)
	}
	for i := 1; i < n; i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		b.insert(uint32(i))
	}
	return &hnswGraph{adj: b.adj}, nil
}

func (b *hnswBuilder) maxNeighbors(level int) int {
	if level == 0 {
		return 2 * b.p.m
	}
	return b.p.m
}

func (b *hnswBuilder) insert(q uint32) {
	top := len(b.adj[q]) - 1
	d := func(x uint32) float32 { return b.dist(q, x) }
	ep := node{0, d(0)}
	for l := b.p.maxLevel - 1; l > top; l-- {
		ep = b.greedy(ep, l, d)
	}
	for l := top; l >= 0; l-- {
		cands := b.searchLayer(ep, l, b.p.efc, d)
		mmax := b.maxNeighbors(l)
		b.adj[q][l] = b.selectNeighbors(cands, mmax)
		for _, e := range b.adj[q][l] {
			b.link(e.id, node{q, e.dist}, l, mmax)
		}
		if len(cands) > 0 {
			ep = cands[0]
		}
	}
}

// link adds the reverse edge from -> e on level l when it is nearer than
// from's current furthest neighbour (or from has room), pruning back to
// mmax.
func (b *hnswBuilder) link(from uint32, e node, l, mmax int) {
	list := b.adj[from][l]
	if len(list) >= mmax && e.dist >= list[len(list)-1].dist {
		return
	}
	i := sort.Search(len(list), func(i int) bool { return list[i].dist > e.dist })
	list = append(list, node{})
	copy(list[i+1:], list[i:])
	list[i] = e
	if len(list) > mmax {
		list = b.selectNeighbors(list, mmax)
	}
	b.adj[from][l] = list
}

// selectNeighbors is the paper's heuristic (Algorithm 4, without extending
// the candidates): walking the candidates nearest first, keep one only
// when it is nearer to the base than to every neighbour already kept, so
// the edges spread over directions instead of crowding one cluster.
// cands are sorted by distance to the base.
func (b *hnswBuilder) selectNeighbors(cands []node, mmax int) []node {
	if len(cands) <= mmax {
		return append([]node(nil), cands...)
	}
	out := make([]node, 0, mmax)
	for _, c := range cands {
		good := true
		for _, r := range out {
			if b.dist(c.id, r.id) < c.dist {
				good = false
				break
			}
		}
		if good {
			out = append(out, c)
			if len(out) == mmax {
				break
			}
		}
	}
	return out
}

func (b *hnswBuilder) greedy(ep node, l int, d func(uint32) float32) node {
	for {
		next := ep
		for _, nb := range b.adj[ep.id][l] {
			if x := d(nb.id); x < next.dist {
				next = node{nb.id, x}
			}
		}
		if next.id == ep.id {
			return ep
		}
		ep = next
	}
}

// searchLayer is the beam search of width ef on level l from ep; the
// result is sorted nearest first.
func (b *hnswBuilder) searchLayer(ep node, l, ef int, d func(uint32) float32) []node {
	b.epoch++
	if b.epoch == 0 {
		clear(b.seen)
		b.epoch = 1
	}
	b.seen[ep.id] = b.epoch
	cands := &nodeMin{ep}
	res := &nodeMax{ep}
	for cands.Len() > 0 {
		cur := heap.Pop(cands).(node)
		if cur.dist > (*res)[0].dist && res.Len() >= ef {
			break
		}
		for _, nb := range b.adj[cur.id][l] {
			if b.seen[nb.id] == b.epoch {
				continue
			}
			b.seen[nb.id] = b.epoch
			x := d(nb.id)
			if res.Len() < ef || x < (*res)[0].dist {
				heap.Push(cands, node{nb.id, x})
				heap.Push(res, node{nb.id, x})
				if res.Len() > ef {
					heap.Pop(res)
				}
			}
		}
	}
	out := []node(*res)
	sort.Slice(out, func(i, j int) bool {
		if out[i].dist != out[j].dist {
			return out[i].dist < out[j].dist
		}
		return out[i].id < out[j].id
	})
	return out
}

// levelCounts is the number of nodes on each of the maxLevel levels.
func (g *hnswGraph) levelCounts(maxLevel int) []int {
	c := make([]int, maxLevel)
	for _, a := range g.adj {
		for l := range min(len(a), maxLevel) {
			c[l]++
		}
	}
	return c
}
