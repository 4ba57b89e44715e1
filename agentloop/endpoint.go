package agentloop

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// CheckEndpoint reports the settings of an HTTP provider (name: "openai",
// "anthropic") that are out of range: a negative timeout or retry count,
// and an apiBase that is no http or https URL (example shows one that is).
func CheckEndpoint(name string, timeout time.Duration, maxRetries int, apiBase, example string) error {
	var errs []error
	if timeout < 0 {
		errs = append(errs, fmt.Errorf("%s provider: timeout: want 0 or more, got %s", name, timeout))
	}
	if maxRetries < 0 {
		errs = append(errs, fmt.Errorf("%s provider: maxRetries: want 0 or more, got %d", name, maxRetries))
	}
	if u, err := url.Parse(apiBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("%s provider: apiBase %q: want an http or https URL such as %s", name, apiBase, example))
	}
	return errors.Join(errs...)
}
