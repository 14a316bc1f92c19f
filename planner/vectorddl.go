package planner

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/vector"
	"github.com/lancecat/lancecat/sqlparse"
)

// Vector indices (issue 16):
//
//	CREATE VECTOR INDEX [IF NOT EXISTS] name ON t (col) [USING IVF_FLAT | IVF_PQ | IVF_SQ | IVF_HNSW_SQ | IVF_HNSW_PQ | IVF_HNSW_FLAT]
//	    [WITH PROPERTIES (metric = 'l2'|'cosine'|'dot', num_partitions = n, num_sub_vectors = m, num_bits = b,
//	                      m = ..., ef_construction = ..., sample_rate = ..., max_iterations = ...)]
//	CREATE VECTOR INDEX name ON t ((VEC_COSINE_DISTANCE(col))) [USING HNSW]   -- the metric from the function
//	ALTER TABLE t ADD VECTOR INDEX ...                                        -- the same
//
// The index is trained and written by lance/vector in Lance's format and
// committed as a CreateIndex transaction of the table's dataset, as CREATE
// INDEX does; DROP INDEX drops it. Without USING the type is IVF_PQ (the
// reference's default vector index); TiDB's HNSW is IVF_HNSW_SQ. Defaults
// are the reference's: metric l2, num_partitions the square root of the row
// count, num_sub_vectors dim/16, 8 bits, sample_rate 256, 50 iterations,
// and for HNSW m 20 and ef_construction 150.

// vectorIndexTypes are the USING words of CREATE VECTOR INDEX.
var vectorIndexTypes = map[string]string{
	"": "IVF_PQ", "IVF_PQ": "IVF_PQ", "IVF_FLAT": "IVF_FLAT", "IVF_SQ": "IVF_SQ",
	"IVF_HNSW_SQ": "IVF_HNSW_SQ", "IVF_HNSW_PQ": "IVF_HNSW_PQ", "IVF_HNSW_FLAT": "IVF_HNSW_FLAT", "HNSW": "IVF_HNSW_SQ",
}

// vectorBuildOptions turns the statement's type and properties into build
// options, every value checked.
func vectorBuildOptions(st *sqlparse.CreateIndex) (vector.BuildOptions, error) {
	typ, ok := vectorIndexTypes[st.Using]
	if !ok {
		return vector.BuildOptions{}, errorf(catalog.CodeInvalidInput, "unknown vector index type %s (IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_SQ, IVF_HNSW_PQ, IVF_HNSW_FLAT, HNSW)", st.Using)
	}
	o := vector.BuildOptions{Type: typ, Name: st.Name, Metric: vector.L2}
	metric := st.Metric
	for _, p := range st.Properties {
		key := strings.ToLower(p.Key)
		if key == "metric" || key == "distance_type" {
			m := strings.ToLower(p.Value)
			if metric != "" && metric != m {
				return o, errorf(catalog.CodeInvalidInput, "vector index %s: metric %q contradicts the distance function's %q", sqlparse.QuoteIdent(st.Name), p.Value, metric)
			}
			metric = m
			continue
		}
		n, err := strconv.Atoi(p.Value)
		if err != nil || n <= 0 || n > 1<<24 {
			return o, errorf(catalog.CodeInvalidInput, "vector index property %s = %q: want a positive integer", p.Key, p.Value)
		}
		switch key {
		case "num_partitions":
			o.NumPartitions = n
		case "num_sub_vectors":
			o.NumSubVectors = n
		case "num_bits":
			o.NumBits = n
		case "sample_rate":
			o.SampleRate = n
		case "max_iterations", "max_iters":
			o.MaxIterations = n
		case "m", "ef_construction":
			if !strings.Contains(typ, "HNSW") {
				return o, errorf(catalog.CodeInvalidInput, "vector index property %s applies to HNSW indices, not %s", p.Key, typ)
			}
			if key == "m" {
				o.M = n
			} else {
				o.EfConstruction = n
			}
		default:
			return o, errorf(catalog.CodeInvalidInput, "unknown vector index property %s (metric, num_partitions, num_sub_vectors, num_bits, m, ef_construction, sample_rate, max_iterations)", p.Key)
		}
	}
	if metric != "" {
		m, err := vector.ParseMetric(metric)
		if err != nil || (m != vector.L2 && m != vector.Cosine && m != vector.Dot) {
			return o, errorf(catalog.CodeInvalidInput, "vector index metric %q (l2, cosine or dot)", metric)
		}
		o.Metric = m
	}
	return o, nil
}

func (s *Session) createVectorIndex(ctx context.Context, st *sqlparse.CreateIndex) (*Result, error) {
	opts, err := vectorBuildOptions(st)
	if err != nil {
		return nil, err
	}
	id, ds, err := s.indexTarget(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	for _, m := range ds.Indices() {
		if strings.EqualFold(m.Name, st.Name) {
			if st.IfNotExists {
				return okResult(0), nil
			}
			return nil, errorf(catalog.CodeTableIndexAlreadyExists, "table %s already has an index named %s", displayName(id), sqlparse.QuoteIdent(st.Name))
		}
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	var field *arrow.Field
	for i, f := range schema.Fields() {
		if strings.EqualFold(f.Name, st.Column) {
			field = &schema.Fields()[i]
			break
		}
	}
	if field == nil {
		return nil, errorf(catalog.CodeTableColumnNotFound, "table %s has no column %s", displayName(id), sqlparse.QuoteIdent(st.Column))
	}
	if isMultiVectorField(*field) {
		// the reference builds multivector indices with the cosine metric
		// only: it is the default here, another metric an error
		if !metricGiven(st) {
			opts.Metric = vector.Cosine
		}
	} else if _, ok := field.Type.(*arrow.FixedSizeListType); !ok {
		return nil, errorf(catalog.CodeInvalidInput, "a vector index needs a VECTOR or MULTIVECTOR column; %s is %s", sqlparse.QuoteIdent(field.Name), typeName(*field))
	}
	opts.UUID = uuid.NewString()
	cleanup := func() {
		_, _ = ds.Store().DeletePrefix(context.WithoutCancel(ctx), path.Join(ds.Dir(), "_indices", opts.UUID)+"/")
	}
	meta, _, err := vector.Build(ctx, ds, field.Name, opts)
	if err != nil {
		cleanup()
		return nil, vectorIndexError(id, st.Name, err)
	}
	if _, err = ds.CommitIndices(ctx, []*dataset.IndexMetadata{meta}, nil); err != nil {
		cleanup()
		return nil, indexError(id, st.Name, err)
	}
	return okResult(0), nil
}

func vectorIndexError(id catalog.Ident, name string, err error) error {
	code := catalog.CodeInternal
	switch {
	case errors.Is(err, vector.ErrUnsupported):
		code = catalog.CodeUnsupported
	case errors.Is(err, vector.ErrInvalidQuery):
		code = catalog.CodeInvalidInput
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	default:
		return indexError(id, name, err)
	}
	return &catalog.Error{Code: code, Message: fmt.Sprintf("vector index %s on %s: %v", sqlparse.QuoteIdent(name), displayName(id), err), Cause: err}
}

// isMultiVectorField reports whether f is a multivector column,
// list<fixed_size_list<float>[n]>.
func isMultiVectorField(f arrow.Field) bool {
	lt, ok := f.Type.(*arrow.ListType)
	if !ok {
		return false
	}
	fsl, ok := lt.Elem().(*arrow.FixedSizeListType)
	return ok && isFloat(fsl.Elem())
}

// metricGiven reports whether the statement names the index's metric (a
// distance function or a metric / distance_type property).
func metricGiven(st *sqlparse.CreateIndex) bool {
	if st.Metric != "" {
		return true
	}
	for _, p := range st.Properties {
		if k := strings.ToLower(p.Key); k == "metric" || k == "distance_type" {
			return true
		}
	}
	return false
}
