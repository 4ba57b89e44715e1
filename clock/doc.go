// Package clock is the time source of switchboard's components: Now, and
// the timers and tickers that fire on the same time, so that deadlines,
// sweeps and heartbeats run on a clock a test can move.
//
// Real is the system clock. Manual is a clock that stands still until the
// test moves it with Add or Set; moving it fires, in order, every timer
// and ticker whose time has come. Components take a Clock in their options
// and use the system clock when none is given.
package clock
