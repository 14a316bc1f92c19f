package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// BatchOp is one operation of a Batch: a peer.mjs op name and its arguments.
type BatchOp struct {
	Op   string         `json:"op"`
	Args map[string]any `json:"args"`
}

// BatchResult is the outcome of one BatchOp: its JSON result, or the peer's refusal.
type BatchResult struct {
	Result json.RawMessage
	Err    *Error
}

// Decode decodes the op's result into out, or returns its refusal.
func (r BatchResult) Decode(out any) error {
	if r.Err != nil {
		return r.Err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("peer: decode result %q: %w", truncate(r.Result, 200), err)
	}
	return nil
}

// Batch runs ops in order in one peer process (starting node and loading the peer costs
// seconds). A refused op does not stop the ones after it; its result carries the refusal.
func Batch(ctx context.Context, t testing.TB, ops ...BatchOp) ([]BatchResult, error) {
	t.Helper()
	var out struct {
		Results []struct {
			OK    json.RawMessage `json:"ok"`
			Error *string         `json:"error"`
		} `json:"results"`
	}
	if err := Op(ctx, t, "batch", map[string]any{"ops": ops}, &out); err != nil {
		return nil, err
	}
	if len(out.Results) != len(ops) {
		return nil, fmt.Errorf("peer batch: %d results for %d ops", len(out.Results), len(ops))
	}
	res := make([]BatchResult, len(ops))
	for i, r := range out.Results {
		if r.Error != nil {
			res[i].Err = &Error{Op: ops[i].Op, Message: *r.Error}
			continue
		}
		res[i].Result = r.OK
	}
	return res, nil
}
