package deps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxDocLines bounds the doc comment of an exported identifier: a
// contract (what it returns, its guarantees, its cost, its errors), not a
// derivation, which goes to docs/ALGORITHMS.md or the package's doc.
const maxDocLines = 25

// TestDocs checks the doc comments of the module's exported identifiers
// (package docs aside): each at most maxDocLines lines, and none pointing
// into the lab, which is not part of the module.
func TestDocs(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "lab" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		check := func(name string, doc *ast.CommentGroup) {
			if doc == nil || !ast.IsExported(name) {
				return
			}
			n++
			lines := fset.Position(doc.End()).Line - fset.Position(doc.Pos()).Line + 1
			if lines > maxDocLines {
				t.Errorf("%s: the doc of %s has %d lines; at most %d", rel, name, lines, maxDocLines)
			}
			if text := doc.Text(); strings.Contains(text, "lab/") || strings.Contains(text, "NOTEBOOK") {
				t.Errorf("%s: the doc of %s points into the lab", rel, name)
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				check(d.Name.Name, d.Doc)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					doc := d.Doc
					if len(d.Specs) > 1 || doc == nil {
						doc = nil
					}
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Doc != nil {
							doc = s.Doc
						}
						check(s.Name.Name, doc)
						var fields *ast.FieldList
						switch t := s.Type.(type) {
						case *ast.StructType:
							fields = t.Fields
						case *ast.InterfaceType:
							fields = t.Methods
						}
						if fields != nil {
							for _, fl := range fields.List {
								for _, id := range fl.Names {
									check(id.Name, fl.Doc)
								}
							}
						}
					case *ast.ValueSpec:
						if s.Doc != nil {
							doc = s.Doc
						}
						for _, id := range s.Names {
							check(id.Name, doc)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("checked only %d docs", n)
	}
}
