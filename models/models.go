// Package models holds the trained models that ship with phs, embedded in
// the binary: the default model of each domain that has one, and other
// models a user selects by name.
//
// A domain's default model is a network (package model) or a context
// model (package cm): networks for Sokoban (PHS*), the sliding-tile
// puzzle (WA*, 5x5 boards) and the Rubik's cube (beam search), a context
// model for The Witness (LevinTS).
// The other shipped models are "sokoban-hard", a Sokoban network (PHS*)
// for harder levels, trained also on the dead ends its searches reach,
// and "stp-6x6" and "stp-7x7", networks of 6x6 and 7x7 sliding-tile
// boards (beam search, its solutions shortened after it).
package models

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"

	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/model"
)

// files holds one directory per domain with a shipped model, named after
// the domain: a network's files as model.Save writes them
// (model.ConfigFile and model.WeightsFile), or a context model's table as
// cm.WriteTable writes it, in the file cm.TableFile. The domain's other
// models are in its subdirectories, one each, named after the variant
// (sokoban/hard is "sokoban-hard").
//
//go:embed */config.json */weights.safetensors */table.safetensors */*/config.json */*/weights.safetensors
var files embed.FS

// ErrNoModel is the error, wrapped, of Default for a domain without a
// shipped model.
var ErrNoModel = errors.New("no shipped model")

// A Model is a shipped model: exactly one of Network and Table is set.
type Model struct {
	// Network is a network, whose configuration says its domain and the
	// algorithm it was trained for; nil for a context model.
	Network *model.Model
	// Table is a context model's parameters, a policy alone for LevinTS
	// (cm.NewEvaluator); nil for a network.
	Table *cm.Table
}

// Domains lists the domains that have a shipped model, in increasing order.
func Domains() []string { return domains(files) }

// domains lists the directories at the root of fsys, in increasing order.
func domains(fsys fs.FS) []string {
	var ds []string
	// The root of an embed.FS can always be read.
	entries, _ := fs.ReadDir(fsys, ".")
	for _, e := range entries {
		if e.IsDir() {
			ds = append(ds, e.Name())
		}
	}
	return ds
}

// Default returns the shipped model of domain, one of Domains: a network
// or a context model, as Model says. For any other domain, it returns an
// error that wraps ErrNoModel; it returns other errors if the shipped
// model cannot be loaded.
func Default(domain string) (Model, error) {
	if !slices.Contains(domains(files), domain) {
		return Model{}, fmt.Errorf("models: %w for domain %q", ErrNoModel, domain)
	}
	return load(files, domain)
}

// Names lists the shipped models, in increasing order: each domain of
// Domains, the name of its default model, and DOMAIN-VARIANT for each of
// the domain's other models (such as "sokoban-hard").
func Names() []string { return slices.Sorted(maps.Keys(names(files))) }

// Named returns the shipped model called name, one of Names: a network or
// a context model, as Model says; Named(domain) is Default(domain). For
// any other name, it returns an error that wraps ErrNoModel; it returns
// other errors if the model cannot be loaded.
func Named(name string) (Model, error) { return named(files, name) }

// named returns the model of fsys called name, as Named does.
func named(fsys fs.FS, name string) (Model, error) {
	dir, ok := names(fsys)[name]
	if !ok {
		return Model{}, fmt.Errorf("models: %w called %q", ErrNoModel, name)
	}
	return load(fsys, dir)
}

// names maps the name of each model of fsys to its directory: DOMAIN for
// each directory of domains(fsys), DOMAIN-VARIANT for each of its
// subdirectories, DOMAIN/VARIANT.
func names(fsys fs.FS) map[string]string {
	m := map[string]string{}
	for _, d := range domains(fsys) {
		m[d] = d
		// A directory of domains(fsys) can be read.
		entries, _ := fs.ReadDir(fsys, d)
		for _, e := range entries {
			if e.IsDir() {
				m[d+"-"+e.Name()] = path.Join(d, e.Name())
			}
		}
	}
	return m
}

// load returns the model in the directory dir of fsys: a network
// (model.ConfigFile and model.WeightsFile) or a context model
// (cm.TableFile). A directory with the files of both, or of neither, is
// an error.
func load(fsys fs.FS, dir string) (Model, error) {
	has := func(name string) bool {
		_, err := fs.Stat(fsys, path.Join(dir, name))
		return err == nil
	}
	network := has(model.ConfigFile) || has(model.WeightsFile)
	table := has(cm.TableFile)
	switch {
	case network && table:
		return Model{}, fmt.Errorf("models: %s: both a network (%s, %s) and a context model (%s)",
			dir, model.ConfigFile, model.WeightsFile, cm.TableFile)
	case table:
		t, err := cm.ReadTableFS(fsys, path.Join(dir, cm.TableFile))
		if err != nil {
			return Model{}, fmt.Errorf("models: %w", err)
		}
		return Model{Table: t}, nil
	case network:
		m, err := model.LoadFS(fsys, dir)
		if err != nil {
			return Model{}, fmt.Errorf("models: %s: %w", dir, err)
		}
		return Model{Network: m}, nil
	}
	return Model{}, fmt.Errorf("models: %s: no model: neither a network (%s, %s) nor a context model (%s)",
		dir, model.ConfigFile, model.WeightsFile, cm.TableFile)
}
