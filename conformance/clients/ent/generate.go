// Package ent is entgo.io/ent's code generated from ./schema (go generate
// ./ent regenerates it); TestEnt runs it over lancecat.
package ent

//go:generate go run -mod=mod entgo.io/ent/cmd/ent generate ./schema
