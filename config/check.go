package config

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// checkKeys returns every key of raw that the Go type t has no field for,
// walking into objects and lists as the decoder will. It matches keys as
// decodeInto configures mapstructure: exactly, by the field's `json` tag
// name (or Go name when untagged), with the fields of embedded structs
// promoted (embedded pointers to structs are not supported).
//
// This is not done in the decode hook because the hook does not know the
// key path, and an error from it stops the decoding of the whole struct,
// hiding the struct's other problems.
func checkKeys(path string, raw any, t reflect.Type) []unknownKey {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var found []unknownKey
	switch t.Kind() {
	case reflect.Struct:
		m, ok := raw.(map[string]any)
		if !ok {
			return nil // the decode hook reports it
		}
		fields := structFields(t)
		known := slices.Sorted(maps.Keys(fields))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			ft, ok := fields[k]
			if !ok {
				found = append(found, unknownKey{path: joinPath(path, k), key: k, known: known})
				continue
			}
			found = append(found, checkKeys(joinPath(path, k), m[k], ft)...)
		}
	case reflect.Map:
		m, _ := raw.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			found = append(found, checkKeys(joinPath(path, k), m[k], t.Elem())...)
		}
	case reflect.Slice, reflect.Array:
		list, ok := raw.([]any)
		if s, isString := raw.(string); isString {
			list, _ = listFromString(s) // the decode hook reports a bad one
		} else if !ok {
			return nil
		}
		for i, v := range list {
			found = append(found, checkKeys(path+"["+strconv.Itoa(i)+"]", v, t.Elem())...)
		}
	}
	return found
}

// unknownKey is a key of the raw tree that its struct has no field for.
type unknownKey struct {
	path  string   // the key's path
	key   string   // the key
	known []string // the struct's keys, sorted
}

// structFields returns the keys struct type t decodes, with their types.
func structFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
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
		fields[name] = f.Type
	}
	return fields
}
