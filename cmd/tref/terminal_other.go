//go:build !linux

package main

// isTerminal reports whether fd is a terminal; off Linux tref assumes it
// is not, so output stays plain and the REPL reads stdin as a stream.
func isTerminal(fd uintptr) bool { return false }
