// Package pb holds the Go bindings of Lance's protobuf wire schemas.
//
// The .proto files are lancecat's own transcription of the message layouts
// Lance writes on disk (field numbers and proto package names are part of the
// format: the package names appear in google.protobuf.Any type URLs). The
// generated code is committed; regenerating needs protoc and protoc-gen-go:
//
//	apt-get install protobuf-compiler
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	go generate ./lance/internal/pb
package pb

//go:generate protoc -I tablepb --go_out=paths=source_relative:tablepb tablepb/file.proto tablepb/table.proto tablepb/transaction.proto tablepb/rowids.proto
//go:generate protoc -I file2pb --go_out=paths=source_relative:file2pb file2pb/file2.proto
//go:generate protoc -I enc21pb --go_out=paths=source_relative:enc21pb enc21pb/encodings_v2_1.proto
//go:generate protoc -I enc20pb --go_out=paths=source_relative:enc20pb enc20pb/encodings_v2_0.proto
