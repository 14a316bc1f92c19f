package vector

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The IVF and Tensor messages of Lance's index.proto (package
// lance.index.pb), decoded by hand: two small messages, every length
// bounded by the buffer they come from.

// tensor is lance.index.pb.Tensor.
type tensor struct {
	dataType uint64 // BFLOAT16=0 FLOAT16=1 FLOAT32=2 FLOAT64=3 UINT8=4 ...
	shape    []uint32
	data     []byte
}

// ivfModel is lance.index.pb.IVF.
type ivfModel struct {
	centroids []float32 // numPartitions * dim (from centroids_tensor or the legacy field)
	dim       int
	offsets   []uint64
	lengths   []uint32
}

func protoErr(what string) error { return fmt.Errorf("%w: %s", ErrCorrupt, what) }

// forEachField walks the top-level fields of a message.
func forEachField(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protoErr("bad protobuf tag")
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protoErr("bad varint")
			}
			b = b[n:]
			if err := fn(num, typ, nil, x); err != nil {
				return err
			}
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protoErr("bad length-delimited field")
			}
			b = b[n:]
			if err := fn(num, typ, v, 0); err != nil {
				return err
			}
		case protowire.Fixed32Type:
			if len(b) < 4 {
				return protoErr("short fixed32")
			}
			if err := fn(num, typ, b[:4], uint64(binary.LittleEndian.Uint32(b))); err != nil {
				return err
			}
			b = b[4:]
		case protowire.Fixed64Type:
			if len(b) < 8 {
				return protoErr("short fixed64")
			}
			if err := fn(num, typ, b[:8], binary.LittleEndian.Uint64(b)); err != nil {
				return err
			}
			b = b[8:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protoErr("bad protobuf field")
			}
			b = b[n:]
		}
	}
	return nil
}

// packedVarints appends a packed (or single) varint field's values; the
// count is bounded by the bytes present.
func packedVarints(dst []uint64, typ protowire.Type, v []byte, x uint64) ([]uint64, error) {
	if typ == protowire.VarintType {
		return append(dst, x), nil
	}
	if typ != protowire.BytesType {
		return nil, protoErr("bad repeated varint field")
	}
	for len(v) > 0 {
		y, n := protowire.ConsumeVarint(v)
		if n < 0 {
			return nil, protoErr("bad packed varint")
		}
		dst = append(dst, y)
		v = v[n:]
	}
	return dst, nil
}

func decodeTensor(b []byte) (*tensor, error) {
	t := &tensor{}
	var shape []uint64
	err := forEachField(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		var err error
		switch num {
		case 1:
			t.dataType = x
		case 2:
			shape, err = packedVarints(shape, typ, v, x)
		case 3:
			t.data = v
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, s := range shape {
		if s > math.MaxUint32 {
			return nil, protoErr("tensor dimension out of range")
		}
		t.shape = append(t.shape, uint32(s))
	}
	return t, nil
}

// float32s returns a FLOAT32/FLOAT16/FLOAT64 tensor as float32 values of
// shape [rows, cols].
func (t *tensor) float32s() (vals []float32, rows, cols int, err error) {
	if len(t.shape) != 2 {
		return nil, 0, 0, protoErr(fmt.Sprintf("tensor of %d dimensions, want 2", len(t.shape)))
	}
	rows, cols = int(t.shape[0]), int(t.shape[1])
	n := uint64(t.shape[0]) * uint64(t.shape[1])
	var width uint64
	switch t.dataType {
	case 1:
		width = 2
	case 2:
		width = 4
	case 3:
		width = 8
	default:
		return nil, 0, 0, fmt.Errorf("%w: tensor data type %d", ErrUnsupported, t.dataType)
	}
	if n*width != uint64(len(t.data)) {
		return nil, 0, 0, protoErr(fmt.Sprintf("tensor shape %v does not match its %d data bytes", t.shape, len(t.data)))
	}
	vals = make([]float32, n)
	d := t.data
	for i := range vals {
		switch width {
		case 2:
			vals[i] = Float16(binary.LittleEndian.Uint16(d[2*i:]))
		case 4:
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(d[4*i:]))
		case 8:
			vals[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(d[8*i:])))
		}
	}
	return vals, rows, cols, nil
}

func decodeIVF(b []byte) (*ivfModel, error) {
	m := &ivfModel{}
	var offsets, lengths []uint64
	var legacy []float32
	var ct *tensor
	err := forEachField(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		var err error
		switch num {
		case 1: // repeated float centroids (legacy)
			switch typ {
			case protowire.BytesType:
				if len(v)%4 != 0 {
					return protoErr("bad packed centroids")
				}
				for i := 0; i < len(v); i += 4 {
					legacy = append(legacy, math.Float32frombits(binary.LittleEndian.Uint32(v[i:])))
				}
			case protowire.Fixed32Type:
				legacy = append(legacy, math.Float32frombits(uint32(x)))
			}
		case 2:
			offsets, err = packedVarints(offsets, typ, v, x)
		case 3:
			lengths, err = packedVarints(lengths, typ, v, x)
		case 4:
			if typ != protowire.BytesType {
				return protoErr("bad centroids_tensor")
			}
			ct, err = decodeTensor(v)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(offsets) != len(lengths) {
		return nil, protoErr(fmt.Sprintf("IVF has %d offsets and %d lengths", len(offsets), len(lengths)))
	}
	m.offsets = offsets
	for _, l := range lengths {
		if l > math.MaxUint32 {
			return nil, protoErr("IVF partition length out of range")
		}
		m.lengths = append(m.lengths, uint32(l))
	}
	if ct != nil {
		vals, rows, cols, err := ct.float32s()
		if err != nil {
			return nil, fmt.Errorf("IVF centroids: %w", err)
		}
		if cols == 0 {
			return nil, protoErr("IVF centroids of dimension 0")
		}
		if len(offsets) > 0 && rows != len(offsets) {
			return nil, protoErr(fmt.Sprintf("IVF has %d centroids and %d partitions", rows, len(offsets)))
		}
		m.centroids, m.dim = vals, cols
	} else if len(legacy) > 0 {
		if len(offsets) == 0 || len(legacy)%len(offsets) != 0 {
			return nil, protoErr("IVF legacy centroids do not divide into partitions")
		}
		m.centroids, m.dim = legacy, len(legacy)/len(offsets)
	}
	return m, nil
}

// numPartitions is the partition count of the model.
func (m *ivfModel) numPartitions() int {
	if len(m.offsets) > 0 {
		return len(m.offsets)
	}
	if m.dim > 0 {
		return len(m.centroids) / m.dim
	}
	return 0
}
