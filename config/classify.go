package config

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// nanobotTag marks a field that only carries a nanobot section along
// (Config.Gateway): its keys are checked against nanobot's schema and
// reported ignored, as if the field were not there.
const nanobotTag = `config:"nanobot"`

// classify walks raw beside the Go type t as decodeInto decodes it and
// records what becomes of each key: a key t has a field for is Used (its
// leaves are recorded); any other key goes to foreign, which accepts what
// nanobot's schema has as Ignored and reports the rest to p as unknown,
// with the closest known key. Keys are matched exactly, by the field's
// `json` tag name (or Go name when untagged), with the fields of embedded
// structs promoted.
//
// This is not done in the decode hook because the hook does not know the
// key path, and an error from it stops the decoding of the whole struct,
// hiding the struct's other problems.
func classify(path string, raw any, t reflect.Type, r *Report, p *problems) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := raw.(map[string]any)
		if !ok {
			r.add(Entry{Path: path, Status: Used}) // the decode hook reports a bad value
			return
		}
		fields := structFields(t)
		var known []string // the level's keys, for suggestions: listed at the first foreign key
		for _, k := range slices.Sorted(maps.Keys(m)) {
			f, ok := fields[k]
			if ok && !strings.Contains(string(f.Tag), nanobotTag) {
				classify(joinPath(path, k), m[k], f.Type, r, p)
				continue
			}
			if known == nil {
				known = levelKeys(path, fields)
			}
			foreign(joinPath(path, k), k, m[k], known, r, p)
		}
	case reflect.Map:
		m, ok := raw.(map[string]any)
		if !ok || !isStruct(t.Elem()) {
			r.add(Entry{Path: path, Status: Used})
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			classify(joinPath(path, k), m[k], t.Elem(), r, p)
		}
	case reflect.Slice, reflect.Array:
		list, ok := raw.([]any)
		if s, isString := raw.(string); isString {
			parsed, err := listFromString(s) // the decode hook reports a bad one
			list, ok = parsed, err == nil
		}
		if !ok || !isStruct(t.Elem()) {
			r.add(Entry{Path: path, Status: Used})
			return
		}
		for i, v := range list {
			classify(path+"["+strconv.Itoa(i)+"]", v, t.Elem(), r, p)
		}
	default:
		r.add(Entry{Path: path, Status: Used})
	}
}

// levelKeys are the keys of the struct level at path that a config may
// hold: its fields' (but nanobot's own, which switchboard does not decode)
// and nanobot's.
func levelKeys(path string, fields map[string]reflect.StructField) []string {
	var known []string
	for k, f := range fields {
		if !strings.Contains(string(f.Tag), nanobotTag) {
			known = append(known, k)
		}
	}
	return append(known, nanobotNode(path).names()...)
}

// foreign handles the key at path that switchboard does not decode: known
// to nanobot, it is Ignored (one entry for a whole object when nanobot
// knows every key inside); unknown, it is reported to p with the closest of
// known, the keys of its level.
func foreign(path, key string, v any, known []string, r *Report, p *problems) {
	if usedNanobotKeys[path] {
		r.add(Entry{Path: path, Status: Used})
		return
	}
	n := nanobotNode(path)
	if n == nil {
		p.unknown(path, key, known)
		return
	}
	m, isMap := v.(map[string]any)
	if !isMap || n.leaf() || nanobotKnowsAll(path, m) && !holdsUsed(path, m) {
		r.add(Entry{Path: path, Status: Ignored, Reason: ReasonNanobotKey})
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		foreign(joinPath(path, k), k, m[k], n.names(), r, p)
	}
}

// nanobotKnowsAll reports whether nanobot knows every key inside m, the
// value at path.
func nanobotKnowsAll(path string, m map[string]any) bool {
	for k, v := range m {
		kp := joinPath(path, k)
		n := nanobotNode(kp)
		if n == nil {
			return false
		}
		if sub, ok := v.(map[string]any); ok && !n.leaf() && !nanobotKnowsAll(kp, sub) {
			return false
		}
	}
	return true
}

// isStruct reports whether t is a struct or a pointer to one.
func isStruct(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// structFields returns the fields struct type t decodes, by key.
func structFields(t reflect.Type) map[string]reflect.StructField {
	fields := map[string]reflect.StructField{}
	for f := range t.Fields() {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			maps.Copy(fields, structFields(f.Type))
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		fields[name] = f
	}
	return fields
}

// usedNanobotKeys are the keys of nanobot's own sections (gateway, tools)
// that switchboard uses all the same: its MCP client reads
// tools.mcpServers (see MCPServers).
var usedNanobotKeys = map[string]bool{"tools.mcpServers": true}

// holdsUsed reports whether m, the value at path, holds a key of
// usedNanobotKeys, so that it is reported key by key.
func holdsUsed(path string, m map[string]any) bool {
	for k := range m {
		if usedNanobotKeys[joinPath(path, k)] {
			return true
		}
	}
	return false
}
