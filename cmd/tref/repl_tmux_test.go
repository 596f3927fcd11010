package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The interactive REPL is tested on a real terminal: tmux runs tref in a
// detached pane, send-keys types, capture-pane reads the screen. The tref
// binary is this test binary, which TestMain (testscript.Main) installed in
// $PATH under the name tref.

// pane is one tmux session running tref on a private server socket.
type pane struct {
	t      *testing.T
	socket string
}

func startREPL(t *testing.T, history string) *pane {
	t.Helper()
	p := startPane(t, fmt.Sprintf("env NO_COLOR=1 TREF_HISTORY=%s tref repl", history))
	p.waitLast("tref>")
	return p
}

// startPane runs a shell command line in a new tmux session whose PATH
// finds this test binary as tref.
func startPane(t *testing.T, cmdline string) *pane {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (apt-get install tmux); .ci/run installs it")
	}
	if _, err := exec.LookPath("tref"); err != nil {
		t.Fatalf("tref is not in PATH: %v", err)
	}
	p := &pane{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	out, err := exec.Command(tmux, "-S", p.socket, "-f", "/dev/null", "new-session", "-d",
		"-x", "120", "-y", "40", "-s", "repl", cmdline).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	// The pane's process writes into the test's directories as it exits
	// (the REPL saves its history): the cleanup waits for it to have
	// exited before the directories are removed.
	pid := 0
	if out, err := exec.Command(tmux, "-S", p.socket, "display-message", "-p", "-t", "repl", "#{pane_pid}").Output(); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		exec.Command(tmux, "-S", p.socket, "kill-server").Run()
		for deadline := time.Now().Add(5 * time.Second); pid > 0 && time.Now().Before(deadline); {
			if exited(pid) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	return p
}

// exited reports whether process pid has exited: gone, or a zombie not
// reaped yet (this machine's init reaps orphans about once a second).
func exited(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	// The state follows the command name, which is in parentheses.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z'
}

// keys sends tmux key names ("Enter", "Up", "Tab", "C-c") or literal text.
func (p *pane) keys(keys ...string) {
	p.t.Helper()
	args := append([]string{"-S", p.socket, "send-keys", "-t", "repl"}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		p.t.Fatalf("tmux send-keys %q: %v\n%s", keys, err, out)
	}
}

// typeLine types text literally and presses Enter.
func (p *pane) typeLine(text string) {
	p.t.Helper()
	p.keys("-l", text)
	p.keys("Enter")
}

func (p *pane) screen() string {
	p.t.Helper()
	out, err := exec.Command("tmux", "-S", p.socket, "capture-pane", "-p", "-t", "repl").Output()
	if err != nil {
		p.t.Fatalf("tmux capture-pane: %v", err)
	}
	return string(out)
}

// lines returns the screen's non-empty lines.
func (p *pane) lines() []string {
	var out []string
	for _, l := range strings.Split(p.screen(), "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// waitFor waits until the screen shows want, failing after 10 seconds.
func (p *pane) waitFor(want string) {
	p.t.Helper()
	p.waitUntil(fmt.Sprintf("%q", want), func() bool { return strings.Contains(p.screen(), want) })
}

// waitLast waits until the last non-empty line of the screen is want.
func (p *pane) waitLast(want string) {
	p.t.Helper()
	p.waitUntil("last line "+want, func() bool {
		l := p.lines()
		return len(l) > 0 && l[len(l)-1] == want
	})
}

// waitCount waits until want appears at least n times on the screen.
func (p *pane) waitCount(want string, n int) {
	p.t.Helper()
	p.waitUntil(fmt.Sprintf("%d× %q", n, want), func() bool { return strings.Count(p.screen(), want) >= n })
}

func (p *pane) waitUntil(what string, ok func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			out, _ := exec.Command("tmux", "-S", p.socket, "capture-pane", "-p", "-t", "repl").Output()
			p.t.Fatalf("timed out waiting for %s; screen:\n%s", what, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestREPLMultiLineInput(t *testing.T) {
	p := startREPL(t, filepath.Join(t.TempDir(), "history"))
	p.typeLine("fn double(a) {")
	p.waitLast(strings.TrimSpace(promptMore))
	p.typeLine("return a * 2")
	p.typeLine("}")
	p.waitLast("tref>")
	p.typeLine("double(21)")
	p.waitFor("\n42\n")
}

func TestREPLTabCompletion(t *testing.T) {
	p := startREPL(t, filepath.Join(t.TempDir(), "history"))
	p.typeLine("let my_long_variable = 5")
	p.waitCount("tref>", 2)
	p.keys("-l", "my_long_v")
	p.keys("Tab")
	p.waitLast("tref> my_long_variable")
	p.keys("Enter")
	p.waitFor("\n5\n")

	p.typeLine("let rec = {alpha: 1, beta: 2}")
	p.waitCount("tref>", 4)
	p.keys("-l", "rec.al")
	p.keys("Tab")
	p.waitLast("tref> rec.alpha")
	p.keys("Enter")
	p.waitFor("rec.alpha\n1\n")

	// A builtin, completed from the standard library's names.
	p.keys("-l", "print(my_long_variable.sha")
	p.keys("Tab")
	p.waitLast("tref> print(my_long_variable.shape")
}

func TestREPLHistory(t *testing.T) {
	history := filepath.Join(t.TempDir(), "state", "history")
	p := startREPL(t, history)
	p.typeLine("print(1234)")
	p.waitFor("\n1234\n")
	p.keys("Up")
	p.waitLast("tref> print(1234)")
	p.keys("Enter")
	p.waitCount("\n1234\n", 2)
	p.keys("C-d")
	p.waitUntil("the history file", func() bool {
		data, err := os.ReadFile(history)
		return err == nil && strings.Contains(string(data), "print(1234)")
	})

	// A new session loads the history: Up recalls the last session's line.
	p = startREPL(t, history)
	p.keys("Up")
	p.waitLast("tref> print(1234)")
	p.keys("C-u")

	// An input typed over several lines is one entry, recalled as one
	// line that runs the same.
	p.typeLine("fn double(a) {")
	p.typeLine("    return a * 2   # twice")
	p.typeLine("}")
	p.waitCount("tref>", 2)
	p.keys("Up")
	p.waitLast("tref> fn double(a) { return a * 2 }")
	p.keys("Enter")
	p.typeLine("double(21)")
	p.waitFor("\n42\n")
	p.keys("Up", "Up", "Up")
	p.waitLast("tref> print(1234)")
	p.keys("C-u", "C-d")
	p.waitUntil("the history file", func() bool {
		data, err := os.ReadFile(history)
		return err == nil && strings.Contains(string(data), "fn double(a) { return a * 2 }\n")
	})
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(history), "*.tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left beside the history: %v", left)
	}
	if st, err := os.Stat(history); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("history file: %v, mode %v; want -rw-------", err, st.Mode().Perm())
	}
}

func TestREPLCtrlCKeepsSession(t *testing.T) {
	p := startREPL(t, filepath.Join(t.TempDir(), "history"))
	p.typeLine("let x = 41")
	p.waitCount("tref>", 2)

	// Ctrl-C in the middle of a multi-line input abandons only the input.
	p.typeLine("let y = [1,")
	p.waitLast(strings.TrimSpace(promptMore))
	p.keys("C-c")
	p.waitLast("tref>")
	p.typeLine("x + 1")
	p.waitFor("\n42\n")

	// Ctrl-C during an evaluation stops it; the variables stay.
	// The loop prints first, so the key is sent once it runs (a Ctrl-C
	// typed while the prompt still reads would abandon the next prompt).
	p.typeLine("let n = 0")
	p.typeLine(`print("looping"); while true { n += 1 }`)
	p.waitFor("\nlooping\n")
	p.keys("C-c")
	p.waitFor("interrupt")
	p.waitLast("tref>")
	p.typeLine("x")
	p.waitFor("\n41\n")
	p.typeLine("n > 0")
	p.waitFor("\ntrue\n")
}

// TestREPLCtrlCStopsQueuedOps: Ctrl-C while a statement waits on queued
// tensor ops (about 60 seconds of 2048x2048 matmuls forced by a print)
// stops at the next op boundary: the input fails with "interrupted" and
// the session, its variables and its device keep working.
func TestREPLCtrlCStopsQueuedOps(t *testing.T) {
	p := startPane(t, fmt.Sprintf("env NO_COLOR=1 TREF_HISTORY=%s tref repl --lookahead 1000", filepath.Join(t.TempDir(), "history")))
	p.waitLast("tref>")
	p.typeLine("let x = 41")
	p.typeLine("let w = rand([2048, 2048]) / 2048")
	p.typeLine("let z = rand([2048, 2048])")
	p.waitCount("tref>", 4)
	// The 60 matmuls are queued at once (within the lookahead and the
	// window's bytes); print waits on them.
	p.typeLine(`print("queued"); for i in range(60) { z = z @ w }; print(z.sum())`)
	p.waitFor("\nqueued\n")
	start := time.Now()
	p.keys("C-c")
	p.waitFor("interrupted")
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("Ctrl-C took %v to stop the queued ops", d)
	}
	p.waitLast("tref>")
	p.typeLine("x + 1")
	p.waitFor("\n42\n")
	p.typeLine("ones([3]).sum() + w.shape[0]")
	p.waitFor("\n2051.0\n")
}

// Errors are coloured on a terminal, and plain with NO_COLOR set.
func TestErrorColourOnTerminal(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "bad.tr")
	if err := os.WriteFile(script, []byte("let x = 1\nprint(y)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env    string
		colour bool
	}{{"", true}, {"NO_COLOR=1", false}} {
		p := startPane(t, fmt.Sprintf("env %s tref run %s; echo status $?; sleep 60", tc.env, script))
		p.waitFor("status 1")
		out, err := exec.Command("tmux", "-S", p.socket, "capture-pane", "-p", "-e", "-t", "repl").Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(out), "\x1b["); got != tc.colour {
			t.Errorf("env %q: escape codes = %v, want %v; screen:\n%q", tc.env, got, tc.colour, out)
		}
		if !strings.Contains(p.screen(), `bad.tr:2:7: undefined name "y"`) {
			t.Errorf("env %q: no error message on screen:\n%s", tc.env, p.screen())
		}
	}
}
