package layers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storePkgs are the packages whose types name what a store's backend can
// do: the facade, the driver contract, and the agent's vocabulary (whose
// ApprovalBook the facade keeps for every backend).
var storePkgs = map[string]string{
	mod + "/channels/mailbox/store":        "the store facade",
	mod + "/channels/mailbox/store/driver": "the driver contract",
	mod + "/agent":                         "agent",
}

// assertedStoreTypes returns, as "file:line: x.(pkg.T)", every type
// assertion and type switch case in src on a type of storePkgs, but
// agent's types other than ApprovalBook.
func assertedStoreTypes(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := map[string]string{} // the file's name of each package of storePkgs
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := storePkgs[path]; !ok {
			continue
		}
		n := path[strings.LastIndexByte(path, '/')+1:]
		if imp.Name != nil {
			n = imp.Name.Name
		}
		local[n] = path
	}
	var out []string
	check := func(e ast.Expr) {
		if star, ok := e.(*ast.StarExpr); ok {
			e = star.X
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return
		}
		path, ok := local[id.Name]
		if !ok || path == mod+"/agent" && sel.Sel.Name != "ApprovalBook" {
			return
		}
		out = append(out, fset.Position(e.Pos()).String()+": x.("+id.Name+"."+sel.Sel.Name+")")
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				check(n.Type)
			}
		case *ast.TypeSwitchStmt:
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					check(e)
				}
			}
		}
		return true
	})
	return out, nil
}

// TestNoStoreAbilityAssertedOutsideTheStore: only the store facade and
// its drivers (channels/mailbox/store/...) assert what a backend can do;
// everything else calls the facade (store.Store), which owns the check.
// Tests included: a test that needs an ability asks store.Store.Has.
func TestNoStoreAbilityAssertedOutsideTheStore(t *testing.T) {
	t.Parallel()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	require.NoError(t, err)
	dir := strings.TrimSpace(string(root))
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == filepath.FromSlash("channels/mailbox/store") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		found, err := assertedStoreTypes(fset, path, nil)
		if err != nil {
			return err
		}
		for _, f := range found {
			t.Errorf("%s: a type assertion on the store's abilities outside channels/mailbox/store; call the facade (store.Store) instead", f)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, files, 100, "the module's Go files were walked")
}

// The check sees assertions and type switches on the facade's, the
// driver contract's and agent.ApprovalBook's types, whatever the import
// is called, and no others.
func TestAssertedStoreTypes(t *testing.T) {
	t.Parallel()
	src := `package x

import (
	"errors"

	"` + mod + `/agent"
	st "` + mod + `/channels/mailbox/store"
	"` + mod + `/channels/mailbox/store/driver"
)

func f(v any, err error) {
	_, _ = v.(st.StateStore)
	_, _ = v.(driver.Browser)
	_, _ = v.(*driver.Delivery)
	_, _ = v.(agent.ApprovalBook)
	switch v.(type) {
	case driver.Skimmer, string:
	}
	_, _ = v.(agent.Tool)
	_, _ = err.(interface{ Unwrap() []error })
	_ = errors.Is(err, st.ErrClosed)
}
`
	got, err := assertedStoreTypes(token.NewFileSet(), "x.go", src)
	require.NoError(t, err)
	assert.Equal(t, []string{"x.go:12:12: x.(st.StateStore)", "x.go:13:12: x.(driver.Browser)",
		"x.go:14:13: x.(driver.Delivery)", "x.go:15:12: x.(agent.ApprovalBook)", "x.go:17:7: x.(driver.Skimmer)"}, got)
}
