package envelope

import "bytes"

// members reads an object into a struct whose JSON names are keys,
// calling field with the index of each member's name in keys (found by
// index) to read its value. A name given twice, or one that matches a key
// only case-insensitively, refuses the input; the value of a name matching
// no key is skipped.
func (s *scanner) members(keys []string, index func([]byte) int, field func(int) bool) bool {
	if !s.enter('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		next, ok := s.more('}', first)
		if !ok || !next {
			return ok
		}
		key, ok := s.key()
		if !ok {
			return false
		}
		i := index(key)
		if i < 0 {
			if !s.skipUnknown(key, keys) {
				return false
			}
			continue
		}
		if seen&(1<<i) != 0 || !field(i) {
			return false
		}
		seen |= 1 << i
	}
}

// skipUnknown skips the value of a member that no field is named after.
// key is ASCII (see scanner.key), so it matches a field under
// encoding/json's case folding exactly when bytes.EqualFold says so;
// such a member is left to encoding/json.
func (s *scanner) skipUnknown(key []byte, keys []string) bool {
	for _, k := range keys {
		if bytes.EqualFold([]byte(k), key) {
			return false
		}
	}
	_, ok := s.value()
	return ok
}

// timeOrNull reads a timestamp with ParseTime, as Time.UnmarshalJSON
// does; null leaves it zero (set false).
func (s *scanner) timeOrNull() (t Time, set, ok bool) {
	if s.skipSpace() == 'n' {
		return Time{}, false, s.literal("null")
	}
	text, ok := s.str()
	if !ok {
		return Time{}, false, false
	}
	t, err := ParseTime(text)
	return t, true, err == nil
}

// timePtr reads a *Time field: null gives nil.
func (s *scanner) timePtr() (*Time, bool) {
	t, set, ok := s.timeOrNull()
	if !set || !ok {
		return nil, ok
	}
	return &t, true
}

// index returns the function members looks names up with for a short
// list of keys.
func index(keys []string) func([]byte) int {
	return func(key []byte) int {
		for i, k := range keys {
			if string(key) == k {
				return i
			}
		}
		return -1
	}
}

// stringList reads a list of strings; null gives nil, a null element "".
func (s *scanner) stringList() ([]string, bool) {
	if s.skipSpace() == 'n' {
		return nil, s.literal("null")
	}
	if !s.enter('[') {
		return nil, false
	}
	out := make([]string, 0, 4)
	for first := true; ; first = false {
		next, ok := s.more(']', first)
		if !ok || !next {
			return out, ok
		}
		v, ok := s.strOrNull()
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
}

func (s *scanner) task() (*Task, bool) {
	if s.skipSpace() == 'n' {
		return nil, s.literal("null")
	}
	t := &Task{}
	return t, s.members(taskKeys, index(taskKeys), func(i int) bool {
		var ok bool
		switch i {
		case 0:
			t.ID, ok = s.strOrNull()
		case 1:
			var v string
			v, ok = s.word(stateWords)
			t.State = TaskState(v)
		case 2:
			t.Deadline, ok = s.timePtr()
		case 3:
			t.Reason, ok = s.strOrNull()
		case 4:
			t.Budget, ok = s.budget()
		case 5:
			t.Used, ok = s.budget()
		}
		return ok
	})
}

// budget reads a task's budget (or used) block; null gives nil.
func (s *scanner) budget() (*Budget, bool) {
	if s.skipSpace() == 'n' {
		return nil, s.literal("null")
	}
	b := &Budget{}
	return b, s.members(budgetKeys, index(budgetKeys), func(i int) bool {
		var ok bool
		switch i {
		case 0:
			b.Tokens, ok = s.int64OrNull()
		case 1:
			b.Cost, ok = s.float64OrNull()
		}
		return ok
	})
}

func (s *scanner) callback() (*Callback, bool) {
	if s.skipSpace() == 'n' {
		return nil, s.literal("null")
	}
	c := &Callback{}
	return c, s.members(callbackKeys, index(callbackKeys), func(i int) bool {
		var ok bool
		switch i {
		case 0:
			c.Channel, ok = s.strOrNull()
		case 1:
			c.ChatID, ok = s.strOrNull()
		case 2:
			c.SessionID, ok = s.strOrNull()
		}
		return ok
	})
}

// content reads the content block; null leaves it empty.
func (s *scanner) content(c *Content) bool {
	if s.skipSpace() == 'n' {
		return s.literal("null")
	}
	return s.members(contentKeys, index(contentKeys), func(int) bool {
		var ok bool
		c.Parts, ok = s.parts()
		return ok
	})
}

// parts reads content.parts; null gives nil, a null element a zero Part.
func (s *scanner) parts() ([]Part, bool) {
	if s.skipSpace() == 'n' {
		return nil, s.literal("null")
	}
	if !s.enter('[') {
		return nil, false
	}
	out := make([]Part, 0, 2)
	for first := true; ; first = false {
		next, ok := s.more(']', first)
		if !ok || !next {
			return out, ok
		}
		out = append(out, Part{})
		if !s.part(&out[len(out)-1]) {
			return nil, false
		}
	}
}

func (s *scanner) part(p *Part) bool {
	if s.skipSpace() == 'n' {
		return s.literal("null")
	}
	return s.members(partKeys, index(partKeys), func(i int) bool {
		var ok bool
		switch i {
		case 0:
			var v string
			v, ok = s.word(partWords)
			p.Type = PartType(v)
		case 1:
			p.Text, ok = s.strOrNull()
		case 2:
			p.Data, ok = s.objectOrNull()
		case 3:
			p.Path, ok = s.strOrNull()
		}
		return ok
	})
}
