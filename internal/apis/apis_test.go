package apis

import (
	"regexp"
	"testing"
)

// Every row is complete and names an API and an endpoint of its own.
func TestTable(t *testing.T) {
	name := regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	names, paths := map[string]bool{}, map[string]bool{}
	for _, a := range All() {
		switch {
		case !name.MatchString(a.Name):
			t.Errorf("%q: a name is lowercase words joined by dashes", a.Name)
		case a.Title == "":
			t.Errorf("%s: no title", a.Name)
		case len(a.Path) < 2 || a.Path[0] != '/':
			t.Errorf("%s: path %q is not rooted", a.Name, a.Path)
		case a.Conversations && !a.Streaming:
			t.Errorf("%s: a conversation's replies are generated: it streams", a.Name)
		}
		if names[a.Name] || paths[a.Path] {
			t.Errorf("%s: name or path %s twice", a.Name, a.Path)
		}
		names[a.Name], paths[a.Path] = true, true
		if got, ok := Lookup(a.Name); !ok || got != a {
			t.Errorf("Lookup(%q) = %+v, %v", a.Name, got, ok)
		}
	}
	if _, ok := Lookup(""); ok {
		t.Error(`Lookup("") found an API`)
	}
	if got := Names(); len(got) != len(table) || got[0] != Completions {
		t.Errorf("Names() = %v", got)
	}
}
