package vector

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// kmeansParams configure trainKMeans.
type kmeansParams struct {
	k        int
	dim      int
	maxIters int
	dot      bool // assign by the smallest dot distance 1 - x·c instead of squared L2
	// balance adds the reference's size penalty (balance factor 1/n) to the
	// assignment, as its IVF training does; PQ codebooks train without.
	balance bool
	seed    uint64
	workers int
}

// kmeansTolerance stops training once the loss changes by less than this
// fraction, as the reference's.
const kmeansTolerance = 1e-4

// kmeansMaxPerCluster bounds the rows trained on to k times this, as the
// reference does.
const kmeansMaxPerCluster = 512

// trainKMeans runs Lloyd's k-means over data (n * dim, row major) the way
// the reference's lance-index does: centroids start at k distinct rows
// picked at random (here by a seeded generator, so the same input and seed
// give the same centroids), each iteration assigns every row (in parallel
// over workers) to the centroid of smallest distance plus, with balance,
// balance_factor * that centroid's previous size, and moves each centroid
// to its rows' mean; an empty cluster is split off a large one. It stops
// after maxIters or when the loss changes by less than kmeansTolerance, and
// returns the centroids (k * dim) and the final loss (the sum of the
// distances plus the balance term).
func trainKMeans(ctx context.Context, data []float32, p kmeansParams) ([]float32, float64, error) {
	dim, k := p.dim, p.k
	if len(data) > k*kmeansMaxPerCluster*dim {
		data = data[:k*kmeansMaxPerCluster*dim]
	}
	n := len(data) / dim
	rng := rand.New(rand.NewPCG(p.seed, 0x9e3779b97f4a7c15))
	cent := make([]float32, k*dim)
	if n <= k {
		perm := rng.Perm(max(n, 1))
		for c := range k {
			if n > 0 {
				copy(cent[c*dim:(c+1)*dim], data[perm[c%n]*dim:(perm[c%n]+1)*dim])
			}
		}
		return cent, 0, nil
	}
	workers := p.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for c, r := range sampleDistinct(rng, n, k) {
		copy(cent[c*dim:(c+1)*dim], data[r*dim:(r+1)*dim])
	}
	assign := make([]int32, n)
	dists := make([]float32, n)
	sizes := make([]int, k)
	bias := make([]float32, k)
	radius := make([]float32, k)
	losses := make([]float64, k)
	sums := make([]float64, k*dim)
	var bf0 float64
	if p.balance {
		bf0 = 1 / float64(n)
	}
	adjusted := math.MaxFloat32
	loss := math.MaxFloat64
	var last float64
	for it := 0; it < max(p.maxIters, 1); it++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		bf := min(adjusted, bf0)
		for c := range k {
			bias[c] = float32(bf * float64(sizes[c]))
		}
		assignBiased(data, cent, dim, p.dot, bias, assign, dists, workers)
		clear(sizes)
		clear(radius)
		clear(losses)
		clear(sums)
		for i := range n {
			c := int(assign[i])
			sizes[c]++
			radius[c] = max(radius[c], dists[i])
			losses[c] += float64(dists[i])
			row := data[i*dim : (i+1)*dim]
			s := sums[c*dim : (c+1)*dim]
			for j, x := range row {
				s[j] += float64(x)
			}
		}
		big := 0
		for c := range k {
			if sizes[c] > sizes[big] {
				big = c
			}
		}
		adjusted = (float64(radius[big]) - losses[big]/float64(sizes[big])) / float64(n)
		var sq float64
		last = 0
		for c := range k {
			sq += float64(sizes[c]) * float64(sizes[c])
			last += losses[c]
		}
		last += bf * (sq - float64(n)*float64(n)/float64(k))
		for c := range k {
			inv := 0.0
			if sizes[c] > 0 {
				inv = 1 / float64(sizes[c])
			}
			for j := range dim {
				cent[c*dim+j] = float32(sums[c*dim+j] * inv)
			}
		}
		splitEmpty(n, sizes, cent, dim, rng)
		if math.Abs(loss-last) < kmeansTolerance*last {
			break
		}
		loss = last
	}
	return cent, last, nil
}

// sampleDistinct is k distinct indices below n, picked uniformly.
func sampleDistinct(rng *rand.Rand, n, k int) []int {
	if k*4 >= n {
		return rng.Perm(n)[:k]
	}
	seen := make(map[int]bool, k)
	out := make([]int, 0, k)
	for len(out) < k {
		r := rng.IntN(n)
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// splitEmpty gives each empty cluster half of a large one, picked with
// probability growing with its size, the two centroids nudged apart by a
// relative 1/1024 in alternating directions (the reference's
// split_clusters).
func splitEmpty(n int, sizes []int, cent []float32, dim int, rng *rand.Rand) {
	k := len(sizes)
	if n <= k {
		return
	}
	const eps = 1.0 / 1024
	for i := range k {
		if sizes[i] != 0 {
			continue
		}
		j := 0
		for step := 0; ; step++ {
			p := float32(sizes[j]-1) / float32(n-k)
			if rng.Float32() < p {
				break
			}
			if step > 64*k { // unlucky draws: take the largest
				for c := range k {
					if sizes[c] > sizes[j] {
						j = c
					}
				}
				break
			}
			j = (j + 1) % k
		}
		sizes[i] = sizes[j] / 2
		sizes[j] -= sizes[i]
		for d := range dim {
			x := cent[j*dim+d]
			if d%2 == 0 {
				cent[i*dim+d], cent[j*dim+d] = x*(1+eps), x*(1-eps)
			} else {
				cent[i*dim+d], cent[j*dim+d] = x*(1-eps), x*(1+eps)
			}
		}
	}
}

// assignBiased sets assign[i] to the centroid minimising distance + bias
// for each row and dists[i] to that (unbiased) distance.
func assignBiased(data, cent []float32, dim int, dot bool, bias []float32, assign []int32, dists []float32, workers int) {
	n := len(data) / dim
	cs := newCentSet(cent, dim, dot)
	workers = max(1, min(workers, n/256+1))
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ds := cs.buf()
			for i := lo; i < hi; i++ {
				cs.distances(data[i*dim:(i+1)*dim], ds)
				best, bv, bd := 0, float32(math.Inf(1)), float32(math.Inf(1))
				for c, d := range ds[:cs.k] {
					if d+bias[c] < bv {
						best, bv, bd = c, d+bias[c], d
					}
				}
				assign[i], dists[i] = int32(best), bd
			}
		}()
	}
	wg.Wait()
}

// assignAll sets assign[i] to the nearest centroid of each row and returns
// the total distance.
func assignAll(data, cent []float32, dim int, dot bool, assign []int32, workers int) float64 {
	n := len(data) / dim
	workers = max(1, min(workers, n/256+1))
	chunk := (n + workers - 1) / workers
	losses := make([]float64, workers)
	cs := newCentSet(cent, dim, dot)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var l float64
			ds := cs.buf()
			for i := lo; i < hi; i++ {
				c, d := cs.nearest(data[i*dim:(i+1)*dim], ds)
				assign[i] = int32(c)
				l += float64(d)
			}
			losses[w] = l
		}()
	}
	wg.Wait()
	var total float64
	for _, l := range losses {
		total += l
	}
	return total
}
