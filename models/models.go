// Package models holds the trained models that ship with phs, embedded in
// the binary: the default model of each domain that has one.
package models

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/phs-go/phs/model"
)

//go:embed all:*
var files embed.FS

// Domains lists the domains that have a shipped default model.
func Domains() []string {
	var ds []string
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		if e.IsDir() {
			ds = append(ds, e.Name())
		}
	}
	return ds
}

// Default returns the shipped model of domain, or nil if it has none.
func Default(domain string) (*model.Model, error) {
	if _, err := fs.Stat(files, domain); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	m, err := model.LoadFS(files, domain)
	if err != nil {
		return nil, fmt.Errorf("models: %s: %w", domain, err)
	}
	return m, nil
}
