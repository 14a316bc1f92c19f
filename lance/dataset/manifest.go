package dataset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// Manifest file layout: [sections...] u32 len + Manifest proto, then a
// 16-byte footer: u64 position of the manifest, u16 major, u16 minor, "LANC".
// Index and transaction sections are u32 len + proto at absolute offsets.
const (
	manifestFooterSize = 16
	// maxManifestFileSize bounds what we are willing to load. Lance manifests
	// are a few KB per thousand fragments; 512 MiB is far beyond any real one.
	maxManifestFileSize = 512 << 20
	manifestMajor       = 0
	manifestMinor       = 2
)

var manifestMagic = []byte("LANC")

// Feature flags (manifest reader_feature_flags / writer_feature_flags).
const (
	FlagDeletionFiles          uint64 = 1
	FlagStableRowIDs           uint64 = 2
	FlagUseV2FormatDeprecated  uint64 = 4
	FlagTableConfig            uint64 = 8
	FlagBasePaths              uint64 = 16
	FlagDisableTransactionFile uint64 = 32
	// knownFlags is every flag this implementation understands.
	knownFlags = FlagDeletionFiles | FlagStableRowIDs | FlagUseV2FormatDeprecated |
		FlagTableConfig | FlagBasePaths | FlagDisableTransactionFile
)

// WriterVersion records which library wrote a manifest.
type WriterVersion struct {
	Library       string
	Version       string
	Prerelease    string
	BuildMetadata string
}

// WriterLibrary and WriterLibraryVersion are what lancecat records as the
// writer of every manifest it commits (see the package comment for why it
// does not claim to be "lance").
const (
	WriterLibrary        = "lancecat"
	WriterLibraryVersion = "0.1.0"
)

// DataFormat is the data storage format of a dataset: file format "lance"
// and the Lance file version its data files are written in ("2.0", "2.1",
// "0.1" for the legacy format).
type DataFormat struct {
	FileFormat string
	Version    string
}

// BasePath is an extra storage location for files (shallow clones, tiering).
type BasePath struct {
	ID            uint32
	Name          *string
	IsDatasetRoot bool
	Path          string
}

// DataFile is one Lance file holding some columns of a fragment.
type DataFile struct {
	Path string // relative to the data/ directory
	// Fields are the field ids stored in the file, in file column order
	// (parents without a column of their own may be absent); -2 marks a
	// tombstoned field that must be ignored.
	Fields        []int32
	ColumnIndices []int32
	FileMajor     uint32
	FileMinor     uint32
	SizeBytes     uint64 // 0 = unknown
	BaseID        *uint32
}

// DeletionFileType is the encoding of a deletion file.
type DeletionFileType int

const (
	// DeletionArrow is an Arrow IPC file with one uint32 column "row_id".
	DeletionArrow DeletionFileType = 0
	// DeletionBitmap is a 32-bit roaring bitmap of deleted offsets.
	DeletionBitmap DeletionFileType = 1
)

func (t DeletionFileType) String() string {
	if t == DeletionBitmap {
		return "bitmap"
	}
	return "arrow"
}

func (t DeletionFileType) suffix() string {
	if t == DeletionBitmap {
		return "bin"
	}
	return "arrow"
}

// DeletionFile marks deleted rows of a fragment.
type DeletionFile struct {
	Type        DeletionFileType
	ReadVersion uint64
	ID          uint64
	// NumDeleted is the number of deleted rows; 0 means unknown for files
	// written by old Lance releases (a deletion file is never empty).
	NumDeleted uint64
	BaseID     *uint32
}

// Fragment is a horizontal slice of the dataset.
type Fragment struct {
	ID           uint64
	Files        []DataFile
	Deletion     *DeletionFile
	PhysicalRows uint64 // rows in the files, deleted ones included
	// HasRowIDs reports a stable-row-id sequence on the fragment.
	HasRowIDs bool
	// HasOverlays reports data overlay files (not readable here).
	HasOverlays bool
	raw         *tablepb.DataFragment
}

// LiveRows is PhysicalRows minus the deleted rows when the deletion count
// is recorded; known is false when it must be computed from the file.
func (f *Fragment) LiveRows() (n uint64, known bool) {
	if f.Deletion == nil {
		return f.PhysicalRows, true
	}
	if f.Deletion.NumDeleted == 0 || f.Deletion.NumDeleted > f.PhysicalRows {
		return 0, false
	}
	return f.PhysicalRows - f.Deletion.NumDeleted, true
}

// IndexFile is one file of an index with its size.
type IndexFile struct {
	Path      string
	SizeBytes uint64
}

// IndexMetadata describes one index (segment) in the index section.
type IndexMetadata struct {
	UUID           string
	Fields         []int32
	Name           string
	DatasetVersion uint64
	// FragmentBitmap is the set of fragment ids the index covers; nil when
	// the manifest does not record it.
	FragmentBitmap *roaring.Bitmap
	// DetailsTypeURL is the type URL of index_details, e.g.
	// "type.googleapis.com/lance.table.BTreeIndexDetails"; Details its bytes.
	DetailsTypeURL string
	Details        []byte
	IndexVersion   *int32
	CreatedAt      *time.Time
	BaseID         *uint32
	Files          []IndexFile
	CoveringFields []int32
	raw            *tablepb.IndexMetadata
}

// Type is the index type named by its details ("BTree", "Bitmap",
// "LabelList", ...) or "" when the manifest does not say.
func (ix *IndexMetadata) Type() string {
	u := ix.DetailsTypeURL
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] == '.' || u[i] == '/' {
			u = u[i+1:]
			break
		}
	}
	if t, ok := trimSuffix(u, "IndexDetails"); ok {
		return t
	}
	return u
}

// isVector reports whether the index is a vector index (its details type
// ends in VectorIndexDetails, Lance's test).
func (ix *IndexMetadata) isVector() bool {
	return strings.HasSuffix(ix.DetailsTypeURL, "VectorIndexDetails")
}

func trimSuffix(s, suf string) (string, bool) {
	if len(s) >= len(suf) && s[len(s)-len(suf):] == suf {
		return s[:len(s)-len(suf)], true
	}
	return s, false
}

// Transaction is the operation that produced a version.
type Transaction struct {
	ReadVersion uint64
	UUID        string
	Tag         string
	Properties  map[string]string
	// Operation is the operation's name: "Append", "Delete", "Overwrite",
	// "CreateIndex", "Rewrite", "Merge", "Project", "Restore",
	// "ReserveFragments", "Update", "UpdateConfig", "DataReplacement",
	// "UpdateMemWalState", "Clone", "UpdateBases" or "" when unknown.
	Operation string
	raw       *tablepb.Transaction
}

// Manifest is one decoded version of a dataset.
type Manifest struct {
	Version         uint64
	Schema          *lanceschema.Schema
	Fragments       []*Fragment
	VersionAuxData  uint64
	Indices         []*IndexMetadata // decoded index section (nil when absent)
	HasIndexSection bool
	Timestamp       time.Time // zero when absent
	Tag             string
	ReaderFlags     uint64
	WriterFlags     uint64
	// MaxFragmentID is the largest fragment id ever used (nil: not recorded;
	// then it is the largest id among Fragments).
	MaxFragmentID   *uint32
	TransactionFile string // relative to _transactions/, "" when none
	// Transaction is the inline transaction section, decoded (nil when the
	// manifest has none; see Dataset.Transaction for the file fallback).
	Transaction   *Transaction
	WriterVersion *WriterVersion
	NextRowID     uint64
	DataFormat    DataFormat
	Config        map[string]string
	TableMetadata map[string]string
	BasePaths     []BasePath
	Branch        *string
	// staged marks the manifest of a StagedOverwrite view: not committed,
	// so nothing may be written on top of it.
	staged bool
}

// NextFragmentID is the id the next new fragment gets.
func (m *Manifest) NextFragmentID() uint64 {
	if m.MaxFragmentID != nil {
		return uint64(*m.MaxFragmentID) + 1
	}
	var next uint64
	for _, f := range m.Fragments {
		if f.ID+1 > next {
			next = f.ID + 1
		}
	}
	return next
}

// checkReadable refuses manifests using reader features we do not know.
func (m *Manifest) checkReadable() error {
	if unknown := m.ReaderFlags &^ knownFlags; unknown != 0 {
		return fmt.Errorf("%w: reader feature flags %#x are unknown to lancecat; a newer Lance wrote this dataset", ErrUnsupported, unknown)
	}
	return nil
}

// checkWritable refuses writes to manifests with features we cannot keep
// consistent.
func (m *Manifest) checkWritable() error {
	if m.staged {
		return invalidf("version %d is a staged overwrite that is not committed; write on the committed version", m.Version)
	}
	if unknown := m.WriterFlags &^ knownFlags; unknown != 0 {
		return fmt.Errorf("%w: writer feature flags %#x are unknown to lancecat", ErrReadOnlyFeature, unknown)
	}
	if m.ReaderFlags&FlagStableRowIDs != 0 || m.WriterFlags&FlagStableRowIDs != 0 {
		return fmt.Errorf("%w: stable row ids", ErrReadOnlyFeature)
	}
	if len(m.BasePaths) > 0 || m.WriterFlags&FlagBasePaths != 0 {
		return fmt.Errorf("%w: multiple base paths", ErrReadOnlyFeature)
	}
	for _, f := range m.Fragments {
		if f.HasOverlays {
			return fmt.Errorf("%w: data overlay files", ErrReadOnlyFeature)
		}
	}
	return nil
}

// DecodeManifest decodes a whole manifest file: the footer, the manifest
// message, and the index and transaction sections it points at. Every
// position and length is checked against the file before use.
func DecodeManifest(file []byte) (*Manifest, error) {
	size := len(file)
	if size > maxManifestFileSize {
		return nil, corruptf("manifest file of %d bytes exceeds the %d byte limit", size, maxManifestFileSize)
	}
	if size < manifestFooterSize+4 {
		return nil, corruptf("manifest file of %d bytes is too short", size)
	}
	if !bytes.Equal(file[size-4:], manifestMagic) {
		return nil, corruptf("manifest file does not end with LANC")
	}
	pos := binary.LittleEndian.Uint64(file[size-manifestFooterSize:])
	limit := uint64(size - manifestFooterSize)
	if pos > limit-4 {
		return nil, corruptf("manifest position %d outside the file (%d bytes)", pos, size)
	}
	n := uint64(binary.LittleEndian.Uint32(file[pos:]))
	if n != limit-pos-4 {
		return nil, corruptf("manifest length %d does not match the %d bytes before the footer", n, limit-pos-4)
	}
	var pm tablepb.Manifest
	if err := proto.Unmarshal(file[pos+4:limit], &pm); err != nil {
		return nil, corruptf("manifest message: %v", err)
	}
	m, err := manifestFromProto(&pm)
	if err != nil {
		return nil, err
	}
	if pm.IndexSection != nil {
		msg, err := section(file, *pm.IndexSection, pos)
		if err != nil {
			return nil, fmt.Errorf("index section: %w", err)
		}
		var is tablepb.IndexSection
		if err := proto.Unmarshal(msg, &is); err != nil {
			return nil, corruptf("index section: %v", err)
		}
		m.HasIndexSection = true
		for _, pi := range is.GetIndices() {
			ix, err := indexFromProto(pi)
			if err != nil {
				return nil, err
			}
			m.Indices = append(m.Indices, ix)
		}
	}
	if pm.TransactionSection != nil {
		msg, err := section(file, *pm.TransactionSection, pos)
		if err != nil {
			return nil, fmt.Errorf("transaction section: %w", err)
		}
		tx, err := DecodeTransaction(msg)
		if err != nil {
			return nil, fmt.Errorf("transaction section: %w", err)
		}
		m.Transaction = tx
	}
	return m, nil
}

// section returns the message of a u32-length-prefixed section at off, which
// must lie before the manifest message at manifestPos.
func section(file []byte, off, manifestPos uint64) ([]byte, error) {
	if manifestPos < 4 || off > manifestPos-4 {
		return nil, corruptf("section offset %d is not before the manifest at %d", off, manifestPos)
	}
	n := uint64(binary.LittleEndian.Uint32(file[off:]))
	if n > manifestPos-off-4 {
		return nil, corruptf("section at %d of %d bytes overlaps the manifest at %d", off, n, manifestPos)
	}
	return file[off+4 : off+4+n], nil
}

func manifestFromProto(pm *tablepb.Manifest) (*Manifest, error) {
	schema, err := lanceschema.FromProto(pm.GetFields(), pm.GetSchemaMetadata())
	if err != nil {
		return nil, corruptf("schema: %w", err) // keeps lanceschema.ErrInvalidSchema matchable
	}
	m := &Manifest{
		Version:         pm.GetVersion(),
		Schema:          schema,
		VersionAuxData:  pm.GetVersionAuxData(),
		Tag:             pm.GetTag(),
		ReaderFlags:     pm.GetReaderFeatureFlags(),
		WriterFlags:     pm.GetWriterFeatureFlags(),
		MaxFragmentID:   pm.MaxFragmentId,
		TransactionFile: pm.GetTransactionFile(),
		NextRowID:       pm.GetNextRowId(),
		Config:          cloneOrNil(pm.GetConfig()),
		TableMetadata:   cloneOrNil(pm.GetTableMetadata()),
		Branch:          pm.Branch,
	}
	if m.Version == 0 {
		return nil, corruptf("manifest has version 0")
	}
	if ts := pm.GetTimestamp(); ts != nil {
		if err := ts.CheckValid(); err != nil {
			return nil, corruptf("timestamp: %v", err)
		}
		m.Timestamp = ts.AsTime()
	}
	if wv := pm.GetWriterVersion(); wv != nil {
		m.WriterVersion = &WriterVersion{Library: wv.GetLibrary(), Version: wv.GetVersion(), Prerelease: wv.GetPrerelease(), BuildMetadata: wv.GetBuildMetadata()}
	}
	if df := pm.GetDataFormat(); df != nil {
		m.DataFormat = DataFormat{FileFormat: df.GetFileFormat(), Version: df.GetVersion()}
	}
	for _, bp := range pm.GetBasePaths() {
		m.BasePaths = append(m.BasePaths, BasePath{ID: bp.GetId(), Name: bp.Name, IsDatasetRoot: bp.GetIsDatasetRoot(), Path: bp.GetPath()})
	}
	seen := make(map[uint64]bool, len(pm.GetFragments()))
	for _, pf := range pm.GetFragments() {
		f := fragmentFromProto(pf)
		if seen[f.ID] {
			return nil, corruptf("duplicate fragment id %d", f.ID)
		}
		seen[f.ID] = true
		m.Fragments = append(m.Fragments, f)
	}
	if m.DataFormat.Version == "" {
		// Old manifests: infer from the data files, as Lance does.
		m.DataFormat = DataFormat{FileFormat: "lance", Version: "0.1"}
		if m.WriterFlags&FlagUseV2FormatDeprecated != 0 {
			m.DataFormat.Version = "2.0"
		}
		for _, f := range m.Fragments {
			if len(f.Files) > 0 {
				m.DataFormat.Version = fileVersionString(f.Files[0].FileMajor, f.Files[0].FileMinor)
				break
			}
		}
	}
	return m, nil
}

// fileVersionString names a data file version the way manifests do.
func fileVersionString(major, minor uint32) string {
	switch {
	case major == 0 && minor == 3, major == 2 && minor == 0:
		return "2.0"
	case major == 0:
		return "0.1"
	}
	return fmt.Sprintf("%d.%d", major, minor)
}

func fragmentFromProto(pf *tablepb.DataFragment) *Fragment {
	f := &Fragment{ID: pf.GetId(), PhysicalRows: pf.GetPhysicalRows(), raw: pf}
	for _, df := range pf.GetFiles() {
		f.Files = append(f.Files, DataFile{
			Path:          df.GetPath(),
			Fields:        slices.Clone(df.GetFields()),
			ColumnIndices: slices.Clone(df.GetColumnIndices()),
			FileMajor:     df.GetFileMajorVersion(),
			FileMinor:     df.GetFileMinorVersion(),
			SizeBytes:     df.GetFileSizeBytes(),
			BaseID:        df.BaseId,
		})
	}
	if d := pf.GetDeletionFile(); d != nil {
		f.Deletion = &DeletionFile{
			Type:        DeletionFileType(d.GetFileType()),
			ReadVersion: d.GetReadVersion(),
			ID:          d.GetId(),
			NumDeleted:  d.GetNumDeletedRows(),
			BaseID:      d.BaseId,
		}
	}
	f.HasRowIDs = pf.GetRowIdSequence() != nil
	f.HasOverlays = len(pf.GetOverlays()) > 0
	return f
}

func indexFromProto(pi *tablepb.IndexMetadata) (*IndexMetadata, error) {
	ix := &IndexMetadata{
		Fields:         slices.Clone(pi.GetFields()),
		Name:           pi.GetName(),
		DatasetVersion: pi.GetDatasetVersion(),
		IndexVersion:   pi.IndexVersion,
		BaseID:         pi.BaseId,
		CoveringFields: slices.Clone(pi.GetCoveringFields()),
		raw:            pi,
	}
	if u := pi.GetUuid().GetUuid(); len(u) > 0 {
		id, err := uuid.FromBytes(u)
		if err != nil {
			return nil, corruptf("index %q: uuid of %d bytes", ix.Name, len(u))
		}
		ix.UUID = id.String()
	}
	if b := pi.GetFragmentBitmap(); b != nil {
		bm, err := decodeRoaring(b)
		if err != nil {
			return nil, corruptf("index %q: fragment bitmap: %v", ix.Name, err)
		}
		ix.FragmentBitmap = bm
	}
	if d := pi.GetIndexDetails(); d != nil {
		ix.DetailsTypeURL = d.GetTypeUrl()
		ix.Details = d.GetValue()
	}
	if pi.CreatedAt != nil {
		t := time.UnixMilli(int64(*pi.CreatedAt)).UTC()
		ix.CreatedAt = &t
	}
	for _, f := range pi.GetFiles() {
		ix.Files = append(ix.Files, IndexFile{Path: f.GetPath(), SizeBytes: f.GetSizeBytes()})
	}
	return ix, nil
}

// decodeRoaring decodes a portable 32-bit roaring bitmap, turning any panic
// of the decoder on corrupt input into an error.
func decodeRoaring(b []byte) (bm *roaring.Bitmap, err error) {
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, fmt.Errorf("malformed roaring bitmap: %v", r)
		}
	}()
	bm = roaring.New()
	if _, err := bm.FromUnsafeBytes(slices.Clone(b)); err != nil {
		return nil, err
	}
	if err := bm.Validate(); err != nil {
		return nil, err
	}
	return bm, nil
}

// DecodeTransaction decodes a transaction message (a _transactions/*.txn
// file or an inline transaction section).
func DecodeTransaction(b []byte) (*Transaction, error) {
	var pt tablepb.Transaction
	if err := proto.Unmarshal(b, &pt); err != nil {
		return nil, corruptf("transaction: %v", err)
	}
	return &Transaction{
		ReadVersion: pt.GetReadVersion(),
		UUID:        pt.GetUuid(),
		Tag:         pt.GetTag(),
		Properties:  cloneOrNil(pt.GetTransactionProperties()),
		Operation:   operationName(&pt),
		raw:         &pt,
	}, nil
}

func operationName(t *tablepb.Transaction) string {
	switch t.GetOperation().(type) {
	case *tablepb.Transaction_Append_:
		return "Append"
	case *tablepb.Transaction_Delete_:
		return "Delete"
	case *tablepb.Transaction_Overwrite_:
		return "Overwrite"
	case *tablepb.Transaction_CreateIndex_:
		return "CreateIndex"
	case *tablepb.Transaction_Rewrite_:
		return "Rewrite"
	case *tablepb.Transaction_Merge_:
		return "Merge"
	case *tablepb.Transaction_Project_:
		return "Project"
	case *tablepb.Transaction_Restore_:
		return "Restore"
	case *tablepb.Transaction_ReserveFragments_:
		return "ReserveFragments"
	case *tablepb.Transaction_Update_:
		return "Update"
	case *tablepb.Transaction_UpdateConfig_:
		return "UpdateConfig"
	case *tablepb.Transaction_DataReplacement_:
		return "DataReplacement"
	case *tablepb.Transaction_Clone_:
		return "Clone"
	case *tablepb.Transaction_UpdateBases_:
		return "UpdateBases"
	}
	return ""
}

func cloneOrNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// ---------------------------------------------------------------- encoding

func (f *Fragment) proto() *tablepb.DataFragment {
	var pf *tablepb.DataFragment
	if f.raw != nil {
		pf = proto.Clone(f.raw).(*tablepb.DataFragment)
	} else {
		pf = &tablepb.DataFragment{}
	}
	pf.Id = f.ID
	pf.PhysicalRows = f.PhysicalRows
	pf.Files = pf.Files[:0]
	for _, df := range f.Files {
		pf.Files = append(pf.Files, &tablepb.DataFile{
			Path:             df.Path,
			Fields:           slices.Clone(df.Fields),
			ColumnIndices:    slices.Clone(df.ColumnIndices),
			FileMajorVersion: df.FileMajor,
			FileMinorVersion: df.FileMinor,
			FileSizeBytes:    df.SizeBytes,
			BaseId:           df.BaseID,
		})
	}
	pf.DeletionFile = nil
	if d := f.Deletion; d != nil {
		pf.DeletionFile = &tablepb.DeletionFile{
			FileType:       tablepb.DeletionFile_DeletionFileType(d.Type),
			ReadVersion:    d.ReadVersion,
			Id:             d.ID,
			NumDeletedRows: d.NumDeleted,
			BaseId:         d.BaseID,
		}
	}
	return pf
}

func (f *Fragment) clone() *Fragment {
	c := *f
	c.Files = make([]DataFile, len(f.Files))
	for i, df := range f.Files {
		df.Fields = slices.Clone(df.Fields)
		df.ColumnIndices = slices.Clone(df.ColumnIndices)
		c.Files[i] = df
	}
	if f.Deletion != nil {
		d := *f.Deletion
		c.Deletion = &d
	}
	return &c
}

func (ix *IndexMetadata) proto() (*tablepb.IndexMetadata, error) {
	var pi *tablepb.IndexMetadata
	if ix.raw != nil {
		pi = proto.Clone(ix.raw).(*tablepb.IndexMetadata)
	} else {
		pi = &tablepb.IndexMetadata{}
	}
	pi.Uuid = nil
	if ix.UUID != "" {
		id, err := uuid.Parse(ix.UUID)
		if err != nil {
			return nil, invalidf("index %q: uuid %q: %v", ix.Name, ix.UUID, err)
		}
		pi.Uuid = &tablepb.UUID{Uuid: id[:]}
	}
	pi.Fields = slices.Clone(ix.Fields)
	pi.Name = ix.Name
	pi.DatasetVersion = ix.DatasetVersion
	pi.FragmentBitmap = nil
	if ix.FragmentBitmap != nil {
		b, err := ix.FragmentBitmap.ToBytes()
		if err != nil {
			return nil, err
		}
		pi.FragmentBitmap = b
	}
	pi.IndexDetails = nil
	if ix.DetailsTypeURL != "" {
		pi.IndexDetails = &anypb.Any{TypeUrl: ix.DetailsTypeURL, Value: slices.Clone(ix.Details)}
	}
	pi.IndexVersion = ix.IndexVersion
	pi.CreatedAt = nil
	if ix.CreatedAt != nil {
		ms := uint64(ix.CreatedAt.UnixMilli())
		pi.CreatedAt = &ms
	}
	pi.BaseId = ix.BaseID
	pi.Files = nil
	for _, f := range ix.Files {
		pi.Files = append(pi.Files, &tablepb.IndexFile{Path: f.Path, SizeBytes: f.SizeBytes})
	}
	pi.CoveringFields = slices.Clone(ix.CoveringFields)
	return pi, nil
}

func (m *Manifest) proto() *tablepb.Manifest {
	fields, smd := m.Schema.Proto()
	pm := &tablepb.Manifest{
		Fields:             fields,
		SchemaMetadata:     smd,
		Version:            m.Version,
		VersionAuxData:     m.VersionAuxData,
		Tag:                m.Tag,
		ReaderFeatureFlags: m.ReaderFlags,
		WriterFeatureFlags: m.WriterFlags,
		MaxFragmentId:      m.MaxFragmentID,
		TransactionFile:    m.TransactionFile,
		NextRowId:          m.NextRowID,
		Config:             cloneOrNil(m.Config),
		TableMetadata:      cloneOrNil(m.TableMetadata),
		Branch:             m.Branch,
		DataFormat:         &tablepb.Manifest_DataStorageFormat{FileFormat: m.DataFormat.FileFormat, Version: m.DataFormat.Version},
	}
	if !m.Timestamp.IsZero() {
		pm.Timestamp = timestamppb.New(m.Timestamp)
	}
	if wv := m.WriterVersion; wv != nil {
		pm.WriterVersion = &tablepb.Manifest_WriterVersion{Library: wv.Library, Version: wv.Version}
		if wv.Prerelease != "" {
			pm.WriterVersion.Prerelease = proto.String(wv.Prerelease)
		}
		if wv.BuildMetadata != "" {
			pm.WriterVersion.BuildMetadata = proto.String(wv.BuildMetadata)
		}
	}
	for _, bp := range m.BasePaths {
		pm.BasePaths = append(pm.BasePaths, &tablepb.BasePath{Id: bp.ID, Name: bp.Name, IsDatasetRoot: bp.IsDatasetRoot, Path: bp.Path})
	}
	for _, f := range m.Fragments {
		pm.Fragments = append(pm.Fragments, f.proto())
	}
	return pm
}

var deterministic = proto.MarshalOptions{Deterministic: true}

// EncodeManifest renders a manifest file: the index section (when
// writeIndices), the transaction section (when tx is not nil), the manifest
// message and the footer. The manifest's section positions are set from
// where the sections land.
func EncodeManifest(m *Manifest, writeIndices bool, tx *tablepb.Transaction) ([]byte, error) {
	var buf []byte
	pm := m.proto()
	appendSection := func(msg proto.Message) (uint64, error) {
		b, err := deterministic.Marshal(msg)
		if err != nil {
			return 0, err
		}
		if uint64(len(b)) > 1<<32-1 {
			return 0, invalidf("section of %d bytes is too large", len(b))
		}
		pos := uint64(len(buf))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(b)))
		buf = append(buf, b...)
		return pos, nil
	}
	if writeIndices {
		is := &tablepb.IndexSection{}
		for _, ix := range m.Indices {
			pi, err := ix.proto()
			if err != nil {
				return nil, err
			}
			is.Indices = append(is.Indices, pi)
		}
		pos, err := appendSection(is)
		if err != nil {
			return nil, err
		}
		pm.IndexSection = &pos
	}
	if tx != nil {
		pos, err := appendSection(tx)
		if err != nil {
			return nil, err
		}
		pm.TransactionSection = &pos
	}
	pos, err := appendSection(pm)
	if err != nil {
		return nil, err
	}
	buf = binary.LittleEndian.AppendUint64(buf, pos)
	buf = binary.LittleEndian.AppendUint16(buf, manifestMajor)
	buf = binary.LittleEndian.AppendUint16(buf, manifestMinor)
	buf = append(buf, manifestMagic...)
	return buf, nil
}
