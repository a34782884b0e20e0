// Package models holds the trained models that ship with phs, embedded in
// the binary: the default model of each domain that has one.
package models

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/phs-go/phs/model"
)

// files holds one directory per domain with a shipped model, named after
// the domain, with the model's files as model.Save writes them.
//
//go:embed */config.json */weights.safetensors
var files embed.FS

// ErrNoModel is the error, wrapped, of Default for a domain without a
// shipped model.
var ErrNoModel = errors.New("no shipped model")

// Domains lists the domains that have a shipped model, in increasing order.
func Domains() []string {
	var ds []string
	// The root of an embed.FS can always be read.
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		if e.IsDir() {
			ds = append(ds, e.Name())
		}
	}
	return ds
}

// Default returns the shipped model of domain, one of Domains. For any other
// domain, it returns an error that wraps ErrNoModel; it returns other errors
// if the shipped model cannot be loaded.
func Default(domain string) (*model.Model, error) {
	if !slices.Contains(Domains(), domain) {
		return nil, fmt.Errorf("models: %w for domain %q", ErrNoModel, domain)
	}
	m, err := model.LoadFS(files, domain)
	if err != nil {
		return nil, fmt.Errorf("models: %s: %w", domain, err)
	}
	return m, nil
}
