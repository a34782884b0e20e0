// Package deps holds a test of the module's dependency direction: the
// search engine knows nothing of the project and the domains nothing but
// it and the leaves domain/tiling and domain/internal, the networks
// nothing of the Bootstrap loop, and no package imports one above it; and
// one that the engine imports nothing outside the standard library and
// its own packages.
package deps

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/phs-go/phs/"

// allowed lists, for each package or folder of packages (a key ending in
// "/"), the packages of the module it may import (a name ending in "/"
// stands for every package under it). The longest key that matches a
// package applies; a package that no key matches is an error, so that a
// new package is placed in the order on purpose.
var allowed = map[string][]string{
	"search":            {"search/internal/"},
	"search/internal/":  {},
	"search/searchtest": {"search"},
	"domain/tiling":     {},
	"domain/internal/":  {},
	"domain/":           {"search", "domain/tiling", "domain/internal/"},
	"nn":                {},
	"internal/":         {"internal/"},
	"model":             {"nn", "search", "internal/"},
	"models":            {"cm", "model"},
	"report":            {"internal/"},
	"chart":             {"internal/"},
	"bootstrap":         {"search", "internal/"},
	"network":           {"bootstrap", "model", "search", "internal/"},
	"cm":                {"bootstrap", "search", "internal/"},
	"cluster":           {"bootstrap", "search", "internal/"},
	"cli":               {"bootstrap", "chart", "cluster", "cm", "domain/", "internal/", "model", "models", "network", "nn", "report", "search"},
	"cmd/":              {"cli", "domain/", "report", "search"},
	"examples/":         {"cli", "search"},
}

func TestDependencyDirection(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if fileExists(filepath.Join(path, "go.mod")) && path != root {
			return filepath.SkipDir // a nested module, such as lab/
		}
		pkg, err := build.ImportDir(path, 0)
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		n++
		rules, ok := rulesFor(rel)
		if !ok {
			t.Errorf("%s: no rule in allowed: place the new package in the dependency order", rel)
			return nil
		}
		for _, imp := range pkg.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if !slices.ContainsFunc(rules, func(r string) bool { return r == dep || strings.HasSuffix(r, "/") && strings.HasPrefix(dep, r) }) {
				t.Errorf("%s imports %s, which is not below it (allowed: %v)", rel, dep, rules)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("found only %d packages under %s", n, root)
	}
}

// TestEngineDependencies checks that the search engine and the packages of
// the module it imports (its own, under search/internal/) import only the
// standard library and each other: no gonum, which the clustering
// rerooters once used (26 of its packages, BLAS and LAPACK among them),
// nor any other module. It checks the check on nn, which uses gonum's
// BLAS.
func TestEngineDependencies(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, external, err := closure(root, "search")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range external {
		t.Errorf("the search engine imports %s (through %s); want only the standard library and search/...", e[1], e[0])
	}
	if !slices.Contains(pkgs, "search/internal/louvain") {
		t.Errorf("the engine's packages %v; want search/internal/louvain among them", pkgs)
	}
	_, external, err = closure(root, "nn")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(external, func(e [2]string) bool { return strings.HasPrefix(e[1], "gonum.org/") }) {
		t.Errorf("nn's imports outside the module %v; want gonum's among them", external)
	}
}

// closure returns the packages of the module that the package at the
// module-relative path rel imports, itself included, directly or not
// (test files left out), and the imports of theirs that are neither the
// standard library's nor the module's, each with its importer.
func closure(root, rel string) (pkgs []string, external [][2]string, err error) {
	seen := map[string]bool{}
	var visit func(rel string) error
	visit = func(rel string) error {
		if seen[rel] {
			return nil
		}
		seen[rel] = true
		pkgs = append(pkgs, rel)
		pkg, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(rel)), 0)
		if err != nil {
			return err
		}
		for _, imp := range pkg.Imports {
			if dep, ok := strings.CutPrefix(imp, module); ok {
				if err := visit(dep); err != nil {
					return err
				}
			} else if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
				external = append(external, [2]string{rel, imp})
			}
		}
		return nil
	}
	err = visit(rel)
	return pkgs, external, err
}

// rulesFor returns the rules of the longest key of allowed that matches
// the package at the module-relative path rel.
func rulesFor(rel string) ([]string, bool) {
	best, found := "", false
	for k := range allowed {
		match := k == rel || strings.HasSuffix(k, "/") && strings.HasPrefix(rel, k)
		if match && len(k) >= len(best) {
			best, found = k, true
		}
	}
	return allowed[best], found
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// forbidden lists, for some packages, the packages that they may not link
// even through others: the Bootstrap loop and the context models link no
// neural-network code.
var forbidden = map[string][]string{
	"bootstrap": {module + "model", module + "nn", "github.com/ebitengine/purego"},
	"cm":        {module + "model", module + "nn", "github.com/ebitengine/purego"},
}

func TestForbiddenLinks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for pkg, bad := range forbidden {
		deps := map[string]bool{}
		var visit func(rel string)
		visit = func(rel string) {
			p, err := build.ImportDir(filepath.Join(root, rel), 0)
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			for _, imp := range p.Imports {
				if deps[imp] {
					continue
				}
				deps[imp] = true
				if dep, ok := strings.CutPrefix(imp, module); ok {
					visit(dep)
				}
			}
		}
		visit(pkg)
		if len(deps) < 3 {
			t.Fatalf("%s links only %d packages", pkg, len(deps))
		}
		for _, b := range bad {
			if deps[b] {
				t.Errorf("%s links %s", pkg, b)
			}
		}
	}
}
