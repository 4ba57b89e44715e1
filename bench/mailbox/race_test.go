//go:build race

package main

func init() { raceFlags = append(raceFlags, "-race") }
