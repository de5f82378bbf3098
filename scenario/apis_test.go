package scenario

import (
	"testing"

	"github.com/llmload/llmload/internal/apis"
)

// A target's api is validated against the API table: every row is
// accepted, and which of them carry multi-turn sessions is the table's.
func TestAPITable(t *testing.T) {
	for _, a := range apis.All() {
		if got := carriesConversations(a.Name); got != a.Conversations {
			t.Errorf("%s: carriesConversations = %v, the table says %v", a.Name, got, a.Conversations)
		}
	}
	if carriesConversations("tgi") {
		t.Error("an API not in the table carries conversations")
	}
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"chat"}, "chat"},
		{[]string{"chat", "Messages"}, "chat or Messages"},
		{[]string{"a", "b", "c"}, "a, b or c"},
	} {
		if got := orList(tc.in); got != tc.want {
			t.Errorf("orList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
