// Package binflag is the -bin NAME=PATH flag of the benchmarks that
// compare switchboard binaries (bench/views, bench/console).
package binflag
