package plan

import "context"

// BuildLeftMinRows is the estimated right side a LEFT hash join must
// reach before ChooseBuildSides builds on its left instead: below it the
// right side fits the budget anyway and the rows keep their usual order
// (the left side's). A variable so tests can reach the rule with small
// tables.
var BuildLeftMinRows = 200_000.0

// ChooseBuildSides makes each LEFT hash join under n whose left side is
// estimated at under half its right side (and the right side at
// BuildLeftMinRows or more) hold the left side in memory and stream the
// right side past it, emitting the unmatched left rows at the end: the
// smaller side is the one held (TPC-H Q13's 150,000 customers rather
// than its 1.5M orders, which pass the budget and spill to disk).
func ChooseBuildSides(ctx context.Context, n Node) {
	j, ok := n.(*Join)
	if !ok {
		return
	}
	ChooseBuildSides(ctx, j.Left)
	ChooseBuildSides(ctx, j.Right)
	j.BuildLeft = false
	if j.Kind != Left || len(j.Keys) == 0 || j.Lookup != nil || j.KeyFilter != nil {
		return
	}
	l, r := estimateRows(ctx, j.Left), estimateRows(ctx, j.Right)
	j.BuildLeft = r >= BuildLeftMinRows && 2*l < r
}
