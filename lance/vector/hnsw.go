package vector

import (
	"container/heap"
	"math"
	"sort"
)

type node struct {
	id   uint32
	dist float32
}

type nodeMin []node

func (h nodeMin) Len() int           { return len(h) }
func (h nodeMin) Less(i, j int) bool { return h[i].dist < h[j].dist }
func (h nodeMin) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nodeMin) Push(x any)        { *h = append(*h, x.(node)) }
func (h *nodeMin) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type nodeMax []node

func (h nodeMax) Len() int           { return len(h) }
func (h nodeMax) Less(i, j int) bool { return h[i].dist > h[j].dist }
func (h nodeMax) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nodeMax) Push(x any)        { *h = append(*h, x.(node)) }
func (h *nodeMax) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// search is the reference's HNSW query: from node 0, a greedy descent
// through levels maxLevel-1 .. 1 (levels absent from the file have no
// edges), then a beam search of width ef over the bottom level; only
// allowed nodes enter the results, every node may be traversed.
func (g *graph) search(maxLevel int, dist func(uint32) float32, ef int, allowed []bool) []node {
	ep := node{0, dist(0)}
	for l := maxLevel - 1; l >= 1; l-- {
		if l >= len(g.levels) || g.levels[l] == nil {
			continue
		}
		ep = greedy(g.levels[l][ep.id], func(id uint32) []uint32 { return g.levels[l][id] }, ep, dist)
	}
	// level 0 greedy step (the reference walks level 0 greedily too)
	ep = greedy(g.bottom[ep.id], func(id uint32) []uint32 { return g.bottom[id] }, ep, dist)
	visited := make([]bool, len(g.bottom))
	visited[ep.id] = true
	cands := &nodeMin{ep}
	res := &nodeMax{}
	if allowed[ep.id] {
		heap.Push(res, ep)
	}
	for cands.Len() > 0 {
		cur := heap.Pop(cands).(node)
		furthest := float32(math.Inf(1))
		if res.Len() > 0 {
			furthest = (*res)[0].dist
		}
		if cur.dist > furthest && res.Len() == ef {
			break
		}
		for _, nb := range g.bottom[cur.id] {
			if visited[nb] {
				continue
			}
			visited[nb] = true
			d := dist(nb)
			if d <= furthest || res.Len() < ef {
				if allowed[nb] {
					if res.Len() < ef {
						heap.Push(res, node{nb, d})
					} else if d < (*res)[0].dist {
						(*res)[0] = node{nb, d}
						heap.Fix(res, 0)
					}
				}
				heap.Push(cands, node{nb, d})
			}
		}
	}
	out := []node(*res)
	sort.Slice(out, func(i, j int) bool { return out[i].dist < out[j].dist })
	return out
}

func greedy(_ []uint32, nbrs func(uint32) []uint32, start node, dist func(uint32) float32) node {
	cur := start
	for {
		next := cur
		for _, nb := range nbrs(cur.id) {
			if d := dist(nb); d < next.dist {
				next = node{nb, d}
			}
		}
		if next.id == cur.id {
			return cur
		}
		cur = next
	}
}

// flatNodes is the reference's fallback for a selective prefilter: the k
// nearest allowed nodes by brute force.
func flatNodes(n int, allowed []bool, dist func(uint32) float32, k int) []node {
	var out []node
	for i := range n {
		if allowed[i] {
			out = append(out, node{uint32(i), dist(uint32(i))})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dist < out[j].dist })
	if len(out) > k {
		out = out[:k]
	}
	return out
}
