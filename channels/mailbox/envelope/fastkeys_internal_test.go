package envelope

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// jsonNames returns the JSON member names of struct type t's fields.
func jsonNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		out = append(out, strings.Split(f.Tag.Get("json"), ",")[0])
	}
	return out
}

// The fast decoder knows every member encoding/json decodes: a field added
// to wireMessage or to a block must be added to the fast path too, or it
// would skip the new member as unknown.
func TestFastPathKnowsEveryMember(t *testing.T) {
	for _, tt := range []struct {
		typ  reflect.Type
		keys []string
	}{
		{reflect.TypeFor[wireMessage](), messageKeys},
		{reflect.TypeFor[Task](), taskKeys},
		{reflect.TypeFor[Callback](), callbackKeys},
		{reflect.TypeFor[Content](), contentKeys},
		{reflect.TypeFor[Part](), partKeys},
	} {
		names := jsonNames(tt.typ)
		if !slices.Equal(names, tt.keys) {
			t.Errorf("%v: members %v, fast path knows %v", tt.typ, names, tt.keys)
		}
	}
	for i, k := range messageKeys {
		if got := messageIndex([]byte(k)); got != i {
			t.Errorf("messageIndex(%q) = %d, want %d", k, got, i)
		}
	}
	if got := messageIndex([]byte("nope")); got != -1 {
		t.Errorf("messageIndex of an unknown name = %d", got)
	}
}
