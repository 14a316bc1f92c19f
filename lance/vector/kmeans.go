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
	dot      bool // assign by largest inner product instead of smallest L2
	seed     uint64
	workers  int
}

// trainKMeans runs Lloyd's k-means over data (n * dim, row major) from k
// distinct rows picked by a seeded generator, so the same input and seed
// give the same centroids. Assignment is parallel over workers. An empty
// cluster is re-seeded from a row of the largest one. It returns the
// centroids (k * dim) and the final loss (sum of squared distances, or of
// 1 - x·c for dot).
func trainKMeans(ctx context.Context, data []float32, p kmeansParams) ([]float32, float64, error) {
	dim, k := p.dim, p.k
	n := len(data) / dim
	rng := rand.New(rand.NewPCG(p.seed, 0x9e3779b97f4a7c15))
	cent := make([]float32, k*dim)
	if n <= k {
		perm := rng.Perm(n)
		for c := range k {
			copy(cent[c*dim:(c+1)*dim], data[perm[c%n]*dim:(perm[c%n]+1)*dim])
		}
		return cent, 0, nil
	}
	workers := p.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	seedPlusPlus(data, cent, dim, k, p.dot, rng)
	assign := make([]int32, n)
	iters := max(p.maxIters, 1)
	var loss float64
	prevLoss := math.Inf(1)
	sums := make([]float64, k*dim)
	counts := make([]int, k)
	for it := 0; it < iters; it++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		loss = assignAll(data, cent, dim, p.dot, assign, workers)
		clear(sums)
		clear(counts)
		for i := range n {
			c := int(assign[i])
			counts[c]++
			row := data[i*dim : (i+1)*dim]
			s := sums[c*dim : (c+1)*dim]
			for j, x := range row {
				s[j] += float64(x)
			}
		}
		for c := range k {
			if counts[c] == 0 {
				continue
			}
			inv := 1 / float64(counts[c])
			for j := range dim {
				cent[c*dim+j] = float32(sums[c*dim+j] * inv)
			}
		}
		// re-seed empty clusters from the largest cluster's rows, nudged apart
		for c := range k {
			if counts[c] != 0 {
				continue
			}
			big := 0
			for j := range k {
				if counts[j] > counts[big] {
					big = j
				}
			}
			var pick []int
			for i := range n {
				if int(assign[i]) == big {
					pick = append(pick, i)
				}
			}
			r := pick[rng.IntN(len(pick))]
			for j := range dim {
				x := data[r*dim+j]
				eps := float32(1e-4) * (1 + float32(math.Abs(float64(x))))
				cent[c*dim+j] = x + eps
				cent[big*dim+j] -= eps
			}
			counts[c], counts[big] = 1, counts[big]-1
		}
		if prevLoss-loss <= 1e-4*math.Abs(prevLoss) && it > 0 {
			break
		}
		prevLoss = loss
	}
	return cent, loss, nil
}

// assignAll sets assign[i] to the nearest centroid of each row and returns
// the total distance.
func assignAll(data, cent []float32, dim int, dot bool, assign []int32, workers int) float64 {
	n := len(data) / dim
	workers = max(1, min(workers, n/256+1))
	chunk := (n + workers - 1) / workers
	losses := make([]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var l float64
			for i := lo; i < hi; i++ {
				c, d := nearest(data[i*dim:(i+1)*dim], cent, dim, dot)
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

// nearest is the centroid nearest to x: smallest squared L2, or for dot the
// smallest 1 - x·c. Ties go to the lower index.
func nearest(x, cent []float32, dim int, dot bool) (int, float32) {
	best, bd := 0, float32(math.Inf(1))
	k := len(cent) / dim
	for c := range k {
		var d float32
		if dot {
			d = 1 - DotProduct(x, cent[c*dim:(c+1)*dim])
		} else {
			d = L2Squared(x, cent[c*dim:(c+1)*dim])
		}
		if d < bd {
			best, bd = c, d
		}
	}
	return best, bd
}

// seedPlusPlus picks the initial centroids by k-means++: each next one is
// a row drawn with probability proportional to its distance to the nearest
// centroid chosen so far.
func seedPlusPlus(data, cent []float32, dim, k int, dot bool, rng *rand.Rand) {
	n := len(data) / dim
	first := rng.IntN(n)
	copy(cent[:dim], data[first*dim:(first+1)*dim])
	d := make([]float64, n)
	for i := range n {
		d[i] = math.Inf(1)
	}
	for c := 1; c < k; c++ {
		prev := cent[(c-1)*dim : c*dim]
		var total float64
		for i := range n {
			x := data[i*dim : (i+1)*dim]
			v := float64(L2Squared(x, prev)) // for dot too: spread the seeds by L2
			if v < d[i] {
				d[i] = v
			}
			total += d[i]
		}
		pick := 0
		if total > 0 {
			r := rng.Float64() * total
			for i := range n {
				r -= d[i]
				if r <= 0 {
					pick = i
					break
				}
				pick = i
			}
		} else {
			pick = rng.IntN(n)
		}
		copy(cent[c*dim:(c+1)*dim], data[pick*dim:(pick+1)*dim])
	}
}
