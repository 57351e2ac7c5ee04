// Package api_test keeps the list of the API bank teams build on (docs/gateways.md,
// "Stability"): package server, ports, ports/porttest, and the domain types and errors those
// use. tiyin.txt is the list at the last release, one line per exported name and its shape;
// a name of it that disappears or changes shape must be named in the CHANGELOG's [Unreleased]
// section under "### Changed" or "### Removed". Added names are free. At a release, after
// [Unreleased] became the version, `go test ./api -update` takes the new list.
package api_test

import (
	"flag"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

var update = flag.Bool("update", false, "write the current API as the released one (at a release)")

const module = "github.com/tiyin/tiyin/"

// roots are the packages whose every exported name is promised; of ports, what
// ports/gateways.go declares.
var roots = []string{module + "server", portsPath, module + "ports/porttest"}

const portsPath = module + "ports"

// domainPath is the package of which only what the roots use (and the functions making it)
// is promised, with its errors.
const domainPath = module + "domain"

func TestTheBankAPIIsListed(t *testing.T) {
	current := listAPI(t)
	if *update {
		if err := os.WriteFile("tiyin.txt", []byte(header+strings.Join(current, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	released, err := os.ReadFile("tiyin.txt")
	if err != nil {
		t.Fatal(err)
	}
	changelog, err := os.ReadFile("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range unannounced(lines(string(released)), current, string(changelog)) {
		t.Error(problem)
	}
}

// TestARemovalMustBeAnnounced: the check refuses a name gone without a CHANGELOG line naming
// it under Changed or Removed of [Unreleased], and takes one that has it.
func TestARemovalMustBeAnnounced(t *testing.T) {
	released := []string{"pkg ports, type Scoring interface, PostScore(context.Context, PostScoreRequest) (domain.PostScoreResult, error)",
		"pkg ports, func Keep()"}
	current := []string{"pkg ports, func Keep()", "pkg ports, func Added()"}
	for _, tt := range []struct {
		name, changelog string
		problems        int
	}{
		{"not announced", "## [Unreleased]\n\n### Added\n- `Added`\n\n## [0.1.0]\n### Removed\n- `Scoring.PostScore`\n", 1},
		{"announced as removed", "## [Unreleased]\n\n### Removed\n- `Scoring.PostScore` is gone\n\n## [0.1.0]\n", 0},
		{"announced as changed, by the method's name", "## [Unreleased]\n### Changed\n- PostScore takes a context\n", 0},
		{"a name alike is not the name", "## [Unreleased]\n### Changed\n- PostScores\n", 1},
	} {
		if got := unannounced(released, current, tt.changelog); len(got) != tt.problems {
			t.Errorf("%s: %q", tt.name, got)
		}
	}
}

const header = "# The API bank teams build on, at the last release (api/api_test.go says how it is kept).\n"

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// unannounced lists the released lines missing from current whose name the CHANGELOG's
// [Unreleased] "Changed" and "Removed" sections do not mention.
func unannounced(released, current []string, changelog string) []string {
	notes := unreleasedNotes(changelog)
	var out []string
	for _, l := range released {
		if slices.Contains(current, l) {
			continue
		}
		name := nameOf(l)
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(notes) {
			out = append(out, fmt.Sprintf("%q disappeared or changed shape: name %s under ### Changed or ### Removed in the CHANGELOG's [Unreleased]", l, name))
		}
	}
	return out
}

// unreleasedNotes is the text of the Changed and Removed sections of [Unreleased].
func unreleasedNotes(changelog string) string {
	_, rest, ok := strings.Cut(changelog, "## [Unreleased]")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	var b strings.Builder
	for _, sec := range strings.Split(rest, "\n### ")[1:] {
		if strings.HasPrefix(sec, "Changed") || strings.HasPrefix(sec, "Removed") {
			b.WriteString(sec)
		}
	}
	return b.String()
}

// nameOf is the name a line is about: a member's own name, else the declared name.
var memberRE = regexp.MustCompile(`^pkg [^,]+, (?:type \w+ \w+, (\w+)|(?:func|type|var|const) (\w+)|method \([^)]*\) (\w+))`)

func nameOf(line string) string {
	m := memberRE.FindStringSubmatch(line)
	if m == nil {
		return line
	}
	return m[1] + m[2] + m[3]
}

// listAPI lists the promised names, sorted.
func listAPI(t *testing.T) []string {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: "..", Fset: token.NewFileSet()}
	pkgs, err := packages.Load(cfg, append(slices.Clone(roots), domainPath)...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		byPath[p.PkgPath] = p.Types
	}
	l := lister{seen: map[*types.TypeName]bool{}}
	for _, path := range roots {
		scope := byPath[path].Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			// Of ports, the gateway ports are the banks'; the repositories are tiyin's own.
			if obj.Exported() && (path != portsPath || filepath.Base(cfg.Fset.Position(obj.Pos()).Filename) == "gateways.go") {
				l.object(obj)
			}
		}
	}
	// The domain's share: the types reached (walked as they were listed), the functions
	// that make one of them, and the errors adapters return.
	domain := byPath[domainPath].Scope()
	for _, name := range domain.Names() {
		switch obj := domain.Lookup(name).(type) {
		case *types.Func:
			if obj.Exported() && l.makesReached(obj) {
				l.object(obj)
			}
		case *types.Var:
			if obj.Exported() && strings.HasPrefix(name, "Err") {
				l.object(obj)
			}
		}
	}
	slices.Sort(l.out)
	return slices.Compact(l.out)
}

type lister struct {
	out  []string
	seen map[*types.TypeName]bool
}

func short(p *types.Package) string { return p.Name() }

func (l *lister) add(pkg *types.Package, format string, args ...any) {
	l.out = append(l.out, fmt.Sprintf("pkg %s, ", pkg.Path())+fmt.Sprintf(format, args...))
}

func (l *lister) typ(t types.Type) string {
	if s, ok := t.(*types.Signature); ok {
		return "func" + l.sig(s)
	}
	l.reach(t)
	return types.TypeString(t, short)
}

// reach lists the domain's named types that t mentions.
func (l *lister) reach(t types.Type) {
	switch t := t.(type) {
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil && obj.Pkg().Path() == domainPath && obj.Exported() {
			l.object(obj)
		}
		for a := range t.TypeArgs().Types() {
			l.reach(a)
		}
	case *types.Pointer:
		l.reach(t.Elem())
	case *types.Slice:
		l.reach(t.Elem())
	case *types.Array:
		l.reach(t.Elem())
	case *types.Map:
		l.reach(t.Key())
		l.reach(t.Elem())
	}
}

// sig is a signature without parameter names: a name is not a shape.
func (l *lister) sig(s *types.Signature) string {
	tuple := func(tu *types.Tuple, variadic bool) string {
		var parts []string
		for i := range tu.Len() {
			t := tu.At(i).Type()
			if variadic && i == tu.Len()-1 {
				parts = append(parts, "..."+l.typ(t.(*types.Slice).Elem()))
				continue
			}
			parts = append(parts, l.typ(t))
		}
		return strings.Join(parts, ", ")
	}
	out := "(" + tuple(s.Params(), s.Variadic()) + ")"
	switch r := s.Results(); r.Len() {
	case 0:
	case 1:
		out += " " + tuple(r, false)
	default:
		out += " (" + tuple(r, false) + ")"
	}
	return out
}

func (l *lister) object(obj types.Object) {
	pkg := obj.Pkg()
	switch obj := obj.(type) {
	case *types.Const:
		l.add(pkg, "const %s %s", obj.Name(), l.typ(obj.Type()))
	case *types.Var:
		l.add(pkg, "var %s %s", obj.Name(), l.typ(obj.Type()))
	case *types.Func:
		l.add(pkg, "func %s%s", obj.Name(), l.sig(obj.Type().(*types.Signature)))
	case *types.TypeName:
		if l.seen[obj] {
			return
		}
		l.seen[obj] = true
		l.typeName(obj)
	}
}

func (l *lister) typeName(obj *types.TypeName) {
	pkg, name := obj.Pkg(), obj.Name()
	if obj.IsAlias() {
		l.add(pkg, "type %s = %s", name, l.typ(obj.Type()))
		return
	}
	named := obj.Type().(*types.Named)
	switch u := named.Underlying().(type) {
	case *types.Struct:
		l.add(pkg, "type %s struct", name)
		for f := range u.Fields() {
			if f.Exported() {
				l.add(pkg, "type %s struct, %s %s", name, f.Name(), l.typ(f.Type()))
			}
		}
	case *types.Interface:
		l.add(pkg, "type %s interface", name)
		for m := range u.Methods() {
			if m.Exported() {
				l.add(pkg, "type %s interface, %s%s", name, m.Name(), l.sig(m.Type().(*types.Signature)))
			}
		}
	default:
		l.add(pkg, "type %s%s %s", name, typeParams(named), l.typ(u))
	}
	for m := range named.Methods() {
		if m.Exported() {
			recv := name
			if _, ptr := m.Type().(*types.Signature).Recv().Type().(*types.Pointer); ptr {
				recv = "*" + name
			}
			l.add(pkg, "method (%s) %s%s", recv, m.Name(), l.sig(m.Type().(*types.Signature)))
		}
	}
}

// typeParams is a generic type's parameter list, as "[P any]".
func typeParams(n *types.Named) string {
	var ps []string
	for p := range n.TypeParams().TypeParams() {
		ps = append(ps, p.Obj().Name()+" "+types.TypeString(p.Constraint(), short))
	}
	if len(ps) == 0 {
		return ""
	}
	return "[" + strings.Join(ps, ", ") + "]"
}

// makesReached says whether fn returns a domain type already listed.
func (l *lister) makesReached(fn *types.Func) bool {
	res := fn.Type().(*types.Signature).Results()
	for i := range res.Len() {
		if n, ok := res.At(i).Type().(*types.Named); ok && l.seen[n.Obj()] {
			return true
		}
	}
	return false
}
