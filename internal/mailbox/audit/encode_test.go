package audit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// A line is what encoding/json's Encoder writes for an Entry: empty
// fields, every field, text that needs escaping, odd times.
func TestAppendEntryMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 4, 5, 6, 7, 891000, time.FixedZone("x", 3600+1800))
	cases := []Entry{
		{},
		{Event: store.Event{Time: at, Kind: store.EventSent, Agent: "coder"}},
		{Event: store.Event{Time: at.UTC(), Kind: store.EventProcessed, Agent: "a", MessageID: "m1",
			From: "b", Ref: "1_b_x.msg.json", Reason: "why", ThreadID: "t", TaskID: "task",
			Model: "m", InputTokens: 1200, OutputTokens: -3}, PID: 42, Host: "h"},
		everyField(),
		{Event: store.Event{Kind: "k", Agent: "<&>\"\\\n\t\x01\u2028\u2029é\xff", Reason: "日本"}, PID: -1},
		{Event: store.Event{Time: time.Unix(0, 0)}},
	}
	for _, e := range cases {
		var want bytes.Buffer
		assert.NoError(t, json.NewEncoder(&want).Encode(e))
		assert.Equal(t, want.String(), string(appendEntry(nil, e)))
	}
}

// everyField returns an Entry with every field, including any added to
// store.Event later, set to a value that is not empty.
func everyField() Entry {
	var e Entry
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		for i := range v.NumField() {
			f := v.Field(i)
			switch f.Kind() {
			case reflect.Struct:
				if f.Type() == reflect.TypeOf(time.Time{}) {
					f.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)))
				} else {
					fill(f)
				}
			case reflect.String:
				f.SetString(v.Type().Field(i).Name)
			case reflect.Int, reflect.Int64:
				f.SetInt(int64(i + 7))
			default:
				panic("everyField: no value for a field of kind " + f.Kind().String())
			}
		}
	}
	fill(reflect.ValueOf(&e).Elem())
	return e
}

// A time encoding/json cannot write is written as the zero time rather
// than losing the line.
func TestAppendEntryOutOfRangeTime(t *testing.T) {
	t.Parallel()
	e := Entry{Event: store.Event{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Kind: store.EventSent, Agent: "a"}}
	assert.Equal(t, `{"time":"0001-01-01T00:00:00Z","kind":"sent","agent":"a"}`+"\n", string(appendEntry([]byte("x"), e))[1:])
}
