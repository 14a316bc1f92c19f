package index

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/lancecat/lancecat/lance/dataset"
)

// Info summarizes one index of a dataset version (all segments of a name),
// for `lancecat dataset inspect`.
type Info struct {
	Name     string
	Kind     Kind
	TypeURL  string   // index details type URL of the first segment
	Columns  []string // indexed columns (field names)
	Segments []string // segment UUIDs
	// Covered and Uncovered partition the dataset's fragment ids: those some
	// segment indexes and those a query must scan.
	Covered, Uncovered []uint64
	IndexVersion       *int32
}

// Describe lists the indices of ds by name, in manifest order, without
// reading index files.
func Describe(ds *dataset.Dataset) []Info {
	var out []Info
	byName := map[string]int{}
	covered := map[string]*roaring.Bitmap{}
	for _, m := range ds.Indices() {
		i, ok := byName[m.Name]
		if !ok {
			i = len(out)
			byName[m.Name] = i
			info := Info{Name: m.Name, Kind: KindOf(m), TypeURL: m.DetailsTypeURL, IndexVersion: m.IndexVersion}
			for _, id := range m.Fields {
				if f := ds.Schema().FieldByID(id); f != nil {
					info.Columns = append(info.Columns, f.Name)
				}
			}
			out = append(out, info)
			covered[m.Name] = roaring.New()
		}
		out[i].Segments = append(out[i].Segments, m.UUID)
		if m.FragmentBitmap != nil {
			covered[m.Name].Or(m.FragmentBitmap)
		}
	}
	for i := range out {
		c := covered[out[i].Name]
		for _, f := range ds.Fragments() {
			if f.ID <= uint64(^uint32(0)) && c.Contains(uint32(f.ID)) {
				out[i].Covered = append(out[i].Covered, f.ID)
			} else {
				out[i].Uncovered = append(out[i].Uncovered, f.ID)
			}
		}
		slices.Sort(out[i].Covered)
		slices.Sort(out[i].Uncovered)
	}
	return out
}
