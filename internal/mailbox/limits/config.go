package limits

import (
	"errors"
	"fmt"
	"math"
	"time"

	"golang.org/x/time/rate"

	"github.com/switchboard-dev/switchboard/config"
)

// Rate is one token bucket: a steady rate of Rate messages Per "second",
// "minute" (the default) or "hour" (Rate 0: no limit), and a Burst, the
// messages that may go at once after a quiet spell.
type Rate struct {
	Rate  float64 `json:"rate"`
	Per   string  `json:"per"`
	Burst int     `json:"burst"`
}

// units are the values of Rate.Per, in seconds.
var units = map[string]float64{"second": 1, "minute": 60, "hour": 3600}

// Limit returns the rate in events per second (rate.Inf without a limit).
func (r Rate) Limit() rate.Limit {
	if r.Rate <= 0 {
		return rate.Inf
	}
	unit, ok := units[r.Per]
	if !ok {
		unit = 60
	}
	return rate.Limit(r.Rate / unit)
}

// Off reports whether the bucket limits nothing.
func (r Rate) Off() bool { return r.Limit() == rate.Inf }

// String says the rate as the configuration writes it: "30/minute,
// burst 10".
func (r Rate) String() string {
	if r.Off() {
		return "no limit"
	}
	per := r.Per
	if per == "" {
		per = "minute"
	}
	return fmt.Sprintf("%g/%s, burst %d", r.Rate, per, r.Burst)
}

func (r Rate) validate(key string) []error {
	var errs []error
	if r.Rate < 0 || math.IsNaN(r.Rate) || math.IsInf(r.Rate, 0) {
		errs = append(errs, fmt.Errorf("%s.rate: want a number of messages, 0 or more (0: no limit), got %v", key, r.Rate))
	}
	if _, ok := units[r.Per]; !ok && r.Per != "" {
		errs = append(errs, fmt.Errorf("%s.per: want \"second\", \"minute\" or \"hour\", got %q", key, r.Per))
	}
	if !r.Off() && r.Burst < 1 {
		errs = append(errs, fmt.Errorf("%s.burst: want at least 1 (the messages that may go at once), got %d", key, r.Burst))
	}
	return errs
}

// Breaker configures the circuit breaker per recipient: Failures failed
// deliveries or rejected tasks within Window seconds open it for CoolDown
// seconds. Failures 0 turns the breakers off.
type Breaker struct {
	Failures int     `json:"failures"`
	Window   float64 `json:"window"`
	CoolDown float64 `json:"coolDown"`
}

// Off reports whether the breakers are off.
func (b Breaker) Off() bool { return b.Failures == 0 }

// Config is the channels.mailbox.limits section.
type Config struct {
	// PerEdge limits what this agent sends to one recipient.
	PerEdge Rate `json:"perEdge"`
	// PerAgent limits what this agent sends in all.
	PerAgent Rate `json:"perAgent"`
	// PerSender limits what this agent takes from one sender; the excess
	// is set aside in rejected/ with the reason.
	PerSender Rate `json:"perSender"`
	// Breaker is the circuit breaker per recipient.
	Breaker Breaker `json:"breaker"`
	// MaxTaskDepth caps how deep a task tree grows: a task whose chain of
	// parent tasks is longer is rejected.
	MaxTaskDepth int `json:"maxTaskDepth"`
	// Bounces is how many replies in a row two agents may exchange
	// without settling a reply owed before the exchange is a stalemate
	// (package internal/mailbox/stalemate): the reply that reaches it is
	// set aside and its task fails with "stalemate: ...". 0 turns the
	// stalemate rules off.
	Bounces int `json:"bounces"`
}

// DefaultConfig returns the defaults: 30 messages a minute (burst 10) to
// one recipient, 120 a minute (burst 30) in all, 60 a minute (burst 20)
// taken from one sender; a breaker that opens after 5 failures within
// 60 s for 120 s; task trees 8 deep; a stalemate at 4 bounces.
func DefaultConfig() Config {
	return Config{
		PerEdge:      Rate{Rate: 30, Per: "minute", Burst: 10},
		PerAgent:     Rate{Rate: 120, Per: "minute", Burst: 30},
		PerSender:    Rate{Rate: 120, Per: "minute", Burst: 60},
		Breaker:      Breaker{Failures: 5, Window: 60, CoolDown: 120},
		MaxTaskDepth: 8,
		Bounces:      4, // stalemate.DefaultBounces
	}
}

var windowRange = config.SecondsRange{Min: config.MinTimeout, Max: config.Day}

// Validate checks the values; errors name the key under prefix (for
// example "channels.mailbox.limits").
func (c *Config) Validate(prefix string) error {
	var errs []error
	errs = append(errs, c.PerEdge.validate(prefix+".perEdge")...)
	errs = append(errs, c.PerAgent.validate(prefix+".perAgent")...)
	errs = append(errs, c.PerSender.validate(prefix+".perSender")...)
	if c.Breaker.Failures < 0 {
		errs = append(errs, fmt.Errorf("%s.breaker.failures: want 0 (off) or more, got %d", prefix, c.Breaker.Failures))
	}
	if !c.Breaker.Off() {
		for _, d := range []struct {
			name string
			v    float64
		}{{"window", c.Breaker.Window}, {"coolDown", c.Breaker.CoolDown}} {
			if p := windowRange.Problem(d.v); p != "" {
				errs = append(errs, fmt.Errorf("%s.breaker.%s: %s", prefix, d.name, p))
			}
		}
	}
	if c.MaxTaskDepth < 1 {
		errs = append(errs, fmt.Errorf("%s.maxTaskDepth: want at least 1, got %d", prefix, c.MaxTaskDepth))
	}
	if c.Bounces < 0 {
		errs = append(errs, fmt.Errorf("%s.bounces: want 0 (off) or more, got %d", prefix, c.Bounces))
	}
	return errors.Join(errs...)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
