package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// valueError is a bad value, worded "want ..., got ...".
type valueError struct{ msg string }

func (e *valueError) Error() string { return e.msg }

func want(what string, got any) error {
	return &valueError{msg: "want " + what + ", got " + show(got)}
}

var durationType = reflect.TypeFor[time.Duration]()

// convert is the mapstructure decode hook. It checks that a value from the
// raw tree fits the Go type it decodes into, and converts the strings the
// environment gives into numbers, bools and lists. Objects, lists and
// strings pass through; mapstructure walks into them.
func convert(from, to reflect.Value) (any, error) {
	v := from.Interface()
	t := to.Type()
	if t == durationType {
		return toDuration(from)
	}
	switch t.Kind() {
	case reflect.Bool:
		return toBool(from)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return toInt(from, t)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		i, err := toInt(from, reflect.TypeFor[int64]())
		if err != nil {
			return nil, err
		}
		n := i.(int64)
		if n < 0 {
			return nil, want("a whole number of 0 or more", v)
		}
		if reflect.Zero(t).OverflowUint(uint64(n)) {
			return nil, want("a whole number that fits in "+t.Kind().String(), v)
		}
		return uint64(n), nil
	case reflect.Float32, reflect.Float64:
		f, err := toFloat(from)
		if err != nil {
			return nil, err
		}
		if reflect.Zero(t).OverflowFloat(f) {
			return nil, want("a number that fits in "+t.Kind().String(), v)
		}
		return f, nil
	case reflect.String:
		if from.Kind() != reflect.String {
			return nil, want("a string", v)
		}
	case reflect.Slice, reflect.Array:
		if s, ok := v.(string); ok {
			return listFromString(s)
		}
		if k := from.Kind(); k != reflect.Slice && k != reflect.Array {
			return nil, want("a list", v)
		}
	case reflect.Map, reflect.Struct:
		if from.Kind() != reflect.Map {
			return nil, want("an object", v)
		}
	}
	return v, nil
}

func toBool(from reflect.Value) (any, error) {
	switch from.Kind() {
	case reflect.Bool:
		return from.Bool(), nil
	case reflect.String:
		switch strings.ToLower(strings.TrimSpace(from.String())) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return nil, want("true or false", from.Interface())
}

// toInt returns from as an int64 that fits in t.
func toInt(from reflect.Value, t reflect.Type) (any, error) {
	v := from.Interface()
	var n int64
	switch from.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n = from.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if from.Uint() > math.MaxInt64 {
			return nil, want("a whole number that fits in "+t.Kind().String(), v)
		}
		n = int64(from.Uint())
	case reflect.String:
		s := strings.TrimSpace(from.String())
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			n = i
			break
		}
		f, err := toFloat(from)
		if err != nil {
			return nil, err
		}
		return intFromFloat(f, v, t)
	case reflect.Float32, reflect.Float64:
		return intFromFloat(from.Float(), v, t)
	default:
		return nil, want("a whole number", v)
	}
	if reflect.Zero(t).OverflowInt(n) {
		return nil, want("a whole number that fits in "+t.Kind().String(), v)
	}
	return n, nil
}

func intFromFloat(f float64, v any, t reflect.Type) (any, error) {
	if f != math.Trunc(f) {
		return nil, want("a whole number", v)
	}
	// 2^63 is the first float64 beyond int64.
	if f < -(1<<63) || f >= 1<<63 || reflect.Zero(t).OverflowInt(int64(f)) {
		return nil, want("a whole number that fits in "+t.Kind().String(), v)
	}
	return int64(f), nil
}

// toFloat returns from as a finite float64.
func toFloat(from reflect.Value) (float64, error) {
	v := from.Interface()
	var f float64
	switch from.Kind() {
	case reflect.Float32, reflect.Float64:
		f = from.Float()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f = float64(from.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		f = float64(from.Uint())
	case reflect.String:
		parsed, err := strconv.ParseFloat(strings.TrimSpace(from.String()), 64)
		if err != nil && !isRangeErr(err) {
			return 0, want("a number", v)
		}
		f = parsed
	default:
		return 0, want("a number", v)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, want("a finite number", v)
	}
	return f, nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// toDuration reads a number of seconds, as nanobot writes durations.
func toDuration(from reflect.Value) (any, error) {
	f, err := toFloat(from)
	if err != nil {
		return nil, want("a number of seconds", from.Interface())
	}
	d := f * float64(time.Second)
	if d < math.MinInt64 || d >= math.MaxInt64 {
		return nil, want("a number of seconds that fits in a duration", from.Interface())
	}
	return time.Duration(d), nil
}

// listFromString reads a list given as a string, as the environment gives
// it: JSON when it starts with "[", else comma-separated items (trimmed;
// empty items dropped, so "" is the empty list).
func listFromString(s string) ([]any, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		var list []any
		if _, err := scanFile([]byte(s)); err != nil {
			return nil, &valueError{msg: fmt.Sprintf("want a list, got one %v", err)}
		}
		if err := json.Unmarshal([]byte(s), &list); err != nil {
			return nil, &valueError{msg: fmt.Sprintf("want a list, got %s (not valid JSON: %v)", strconv.Quote(s), err)}
		}
		return normalise(list, "", nil).([]any), nil
	}
	list := []any{}
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			list = append(list, item)
		}
	}
	return list, nil
}

// show formats a raw value for an error message: strings quoted, numbers
// as JSON writes them, lists and objects by kind.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return fmt.Sprint(v)
}
