package config

// Ignore records the whole section as ignored, for reason (such as
// ReasonChannelType), in the Report of the Config it came from. Its keys
// are not checked: they belong to a channel type this build does not have.
func (s Section) Ignore(reason string) {
	s.report.add(Entry{Path: s.Path, Status: Ignored, Reason: reason})
}

// Claim records the whole section as used, for a part that decodes it
// later (a mailbox backend's section, when its store is opened).
func (s Section) Claim() {
	if s.Raw != nil {
		s.report.add(Entry{Path: s.Path, Status: Used})
	}
}

// Invalid records err as a problem of the section that its owner found
// after decoding (a bad combination of values); Report.Err returns it.
// err's text should start with the key path, as the channels' Validate
// errors do; the section's path is used when it does not.
func (s Section) Invalid(err error) {
	if err == nil {
		return
	}
	s.report.Invalid(s.Path, err)
}
