package torch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebitengine/purego"
)

func TestChooseCoreType(t *testing.T) {
	for _, tc := range []struct {
		rates map[string]float64
		want  string
	}{
		{map[string]float64{"": 100, "Haswell": 110, "SkylakeX": 95}, "Haswell"},
		{map[string]float64{"": 100, "Haswell": 102}, ""},           // within noise: keep OpenBLAS's own
		{map[string]float64{"": 100, "Haswell": 90, "Zen": 80}, ""}, // the default is fastest
		{map[string]float64{"Haswell": 50, "Zen": 60}, "Zen"},       // the default failed
		{map[string]float64{"": 10}, ""},
		{map[string]float64{"Haswell": 70, "Zen": 70}, "Haswell"}, // ties go to the first name
	} {
		if got := chooseCoreType(tc.rates); got != tc.want {
			t.Errorf("chooseCoreType(%v) = %q, want %q", tc.rates, got, tc.want)
		}
	}
}

// fakeProbe answers from a table: the core OpenBLAS "chose" for each
// requested type and the rates of successive rounds.
type fakeProbe struct {
	core  map[string]string
	rates map[string][]float64
	calls []string
}

func (f *fakeProbe) probe(lib, c string) (probeResult, error) {
	f.calls = append(f.calls, c)
	r := f.rates[c]
	if len(r) == 0 {
		return probeResult{}, errors.New("killed by SIGILL")
	}
	f.rates[c] = r[1:]
	return probeResult{Core: f.core[c], GFLOPS: r[0]}, nil
}

func TestMeasureCoreTypes(t *testing.T) {
	f := &fakeProbe{
		core: map[string]string{"": "Cooperlake", "Haswell": "Haswell", "Zen": "Haswell", "SkylakeX": "SkylakeX", "Cooperlake": "Cooperlake"},
		rates: map[string][]float64{
			"": {100, 104}, "Haswell": {112, 90}, "Zen": {120, 120}, "SkylakeX": {95}, "Cooperlake": {200, 200},
		},
	}
	got := measureCoreTypes("lib", []string{"", "Haswell", "Zen", "SkylakeX", "Cooperlake"}, 2, f.probe)
	// Zen did not take (OpenBLAS ran Haswell), Cooperlake is the default's
	// core, SkylakeX failed in round 2: each is left out.
	want := map[string]float64{"": 104, "Haswell": 112}
	if len(got) != len(want) || got[""] != want[""] || got["Haswell"] != want["Haswell"] {
		t.Errorf("rates %v, want %v", got, want)
	}
	// Rounds interleave the candidates; one dropped is not probed again.
	if calls := strings.Join(f.calls, ","); calls != ",Haswell,Zen,SkylakeX,Cooperlake,,Haswell,SkylakeX" {
		t.Errorf("probe order %q", calls)
	}
}

// setter is a coreTypeSetter over fakes: env is the environment, the
// probe counts its calls and the cache lives in dir.
func setter(env map[string]string, lib, cpuID, dir string, probes *int) coreTypeSetter {
	return coreTypeSetter{
		getenv:     func(k string) string { return env[k] },
		setenv:     func(k, v string) error { env[k] = v; return nil },
		lib:        func(string) string { return lib },
		cpuID:      cpuID,
		candidates: []string{"", "Haswell", "SkylakeX"},
		probe: func(_, c string) (probeResult, error) {
			*probes++
			rate := map[string]float64{"": 100, "Haswell": 120, "SkylakeX": 90}[c]
			core := c
			if c == "" {
				core = "SkylakeX-default"
			}
			return probeResult{Core: core, GFLOPS: rate}, nil
		},
		cache: coreTypeCache{path: filepath.Join(dir, "tref", "openblas-coretype.json")},
	}
}

func TestCoreTypeMeasuredOnceAndCached(t *testing.T) {
	dir := t.TempDir()
	libA := filepath.Join(dir, "libopenblasp-r0.3.21.so")
	libB := filepath.Join(dir, "libopenblasp-r0.3.26.so")
	os.WriteFile(libA, []byte("a"), 0o644)
	os.WriteFile(libB, []byte("bb"), 0o644)
	probes := 0
	env := map[string]string{}
	s := setter(env, libA, "amd64/AuthenticAMD 25/17", dir, &probes)
	if got, measured := s.set("plugin"); got != "Haswell" || !measured || env[coreTypeEnv] != "Haswell" {
		t.Fatalf("first load: %q measured=%v env=%q", got, measured, env[coreTypeEnv])
	}
	if probes != 6 { // 3 candidates, 2 rounds
		t.Errorf("%d probes, want 6", probes)
	}
	// The same CPU and OpenBLAS: the cached choice, no probe.
	probes, env = 0, map[string]string{}
	s = setter(env, libA, "amd64/AuthenticAMD 25/17", dir, &probes)
	if got, measured := s.set("plugin"); got != "Haswell" || measured || probes != 0 || env[coreTypeEnv] != "Haswell" {
		t.Errorf("cached load: %q measured=%v probes=%d env=%q", got, measured, probes, env[coreTypeEnv])
	}
	// Another OpenBLAS, or another CPU: measured again.
	for _, c := range []struct{ lib, cpu string }{{libB, "amd64/AuthenticAMD 25/17"}, {libA, "amd64/AuthenticAMD 25/1"}} {
		probes = 0
		if _, measured := setter(map[string]string{}, c.lib, c.cpu, dir, &probes).set("plugin"); !measured || probes == 0 {
			t.Errorf("%s on %s: not measured", c.lib, c.cpu)
		}
	}
	// The same library file grown (an upgrade in place) is another key.
	os.WriteFile(libA, []byte("aaa"), 0o644)
	probes = 0
	if _, measured := setter(map[string]string{}, libA, "amd64/AuthenticAMD 25/17", dir, &probes).set("plugin"); !measured {
		t.Error("a changed OpenBLAS file used the old measurement")
	}
	if m := (coreTypeCache{path: filepath.Join(dir, "tref", "openblas-coretype.json")}).read(); len(m) != 4 {
		t.Errorf("cache holds %d keys, want 4", len(m))
	}
}

func TestCoreTypeUserWinsAndOnlyForOpenBLAS(t *testing.T) {
	dir := t.TempDir()
	probes := 0
	env := map[string]string{coreTypeEnv: "Zen"}
	if got, measured := setter(env, "/x/libopenblas.so.0", "cpu", dir, &probes).set("plugin"); got != "Zen" || measured || probes != 0 || env[coreTypeEnv] != "Zen" {
		t.Errorf("user's OPENBLAS_CORETYPE: %q measured=%v probes=%d env=%q", got, measured, probes, env[coreTypeEnv])
	}
	env = map[string]string{}
	if got, measured := setter(env, "", "cpu", dir, &probes).set("plugin"); got != "" || measured || probes != 0 || len(env) != 0 {
		t.Errorf("no OpenBLAS: %q measured=%v probes=%d env=%v", got, measured, probes, env)
	}
	// A damaged cache file is measured again and rewritten.
	path := filepath.Join(dir, "tref", "openblas-coretype.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{not json"), 0o644)
	if got, measured := setter(env, "/x/libopenblas.so.0", "cpu", dir, &probes).set("plugin"); got != "Haswell" || !measured {
		t.Errorf("damaged cache: %q measured=%v", got, measured)
	}
}

func TestOpenBLASBehindAlternatives(t *testing.T) {
	dir := t.TempDir()
	ob := filepath.Join(dir, "openblas-pthread")
	ref := filepath.Join(dir, "blas")
	os.MkdirAll(ob, 0o755)
	os.MkdirAll(ref, 0o755)
	os.WriteFile(filepath.Join(ob, "libblas.so.3"), nil, 0o644)
	os.WriteFile(filepath.Join(ob, "libopenblasp-r0.3.21.so"), nil, 0o644)
	os.Symlink("libopenblasp-r0.3.21.so", filepath.Join(ob, "libopenblas.so.0"))
	os.WriteFile(filepath.Join(ref, "libblas.so.3"), nil, 0o644)
	// Debian's alternatives: libblas.so.3 -> /etc/alternatives/... -> the chosen one.
	lib := filepath.Join(dir, "lib")
	os.MkdirAll(lib, 0o755)
	os.Symlink(filepath.Join(ob, "libblas.so.3"), filepath.Join(lib, "libblas.so.3"))
	got := openBLASBehind(findLib("libblas.so.3", []string{filepath.Join(dir, "none"), lib}))
	if got != filepath.Join(ob, "libopenblasp-r0.3.21.so") {
		t.Errorf("OpenBLAS behind libblas.so.3: %q", got)
	}
	os.Remove(filepath.Join(lib, "libblas.so.3"))
	os.Symlink(filepath.Join(ref, "libblas.so.3"), filepath.Join(lib, "libblas.so.3"))
	if got := openBLASBehind(findLib("libblas.so.3", []string{lib})); got != "" {
		t.Errorf("reference BLAS taken for OpenBLAS: %q", got)
	}
}

// TestCoreTypeProbeRuns measures the real candidates in child processes
// (this test binary re-executed as a probe) when the plugin's libtorch
// runs on OpenBLAS, as Debian's does once scripts/build-torch.sh has
// installed it (under TREF_REQUIRE_TORCH it must).
func TestCoreTypeProbeRuns(t *testing.T) {
	lib := plugin(t)
	blas := openBLASFor(lib.Path, libraryDirs())
	if blas == "" {
		if os.Getenv("TREF_REQUIRE_TORCH") != "" && !strings.Contains(lib.Version, "+") {
			t.Fatalf("%s does not run on OpenBLAS; scripts/build-torch.sh installs it for Debian's libtorch", lib.Path)
		}
		t.Skipf("%s does not run on OpenBLAS", lib.Path)
	}
	// The loader's choice reached the OpenBLAS libtorch loaded (it reads
	// the variable once, at load).
	if want := os.Getenv(coreTypeEnv); want != "" {
		h, err := purego.Dlopen(blas, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			t.Fatal(err)
		}
		var corename func() string
		purego.RegisterLibFunc(&corename, h, "openblas_get_corename")
		if got := corename(); !strings.EqualFold(got, want) {
			t.Errorf("OPENBLAS_CORETYPE=%s but libtorch's OpenBLAS runs %s", want, got)
		}
	}
	start := time.Now()
	cands := coreTypeCandidates()
	rates := measureCoreTypes(blas, cands, 1, execProbe)
	took := time.Since(start)
	t.Logf("%s: %v in %v (choice %q)", blas, rates, took, chooseCoreType(rates))
	if rates[""] <= 0 {
		t.Fatalf("OpenBLAS's own core type did not run: %v", rates)
	}
	if took > 10*time.Second {
		t.Errorf("measuring %d core types took %v", len(cands), took)
	}
}

func TestCoreTypeProbesFailingAreCached(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	s := setter(map[string]string{}, "/x/libopenblas.so.0", "cpu", dir, &calls)
	s.probe = func(string, string) (probeResult, error) { calls++; return probeResult{}, errors.New("exit status 1") }
	env := map[string]string{}
	s.setenv = func(k, v string) error { env[k] = v; return nil }
	if got, measured := s.set("plugin"); got != "" || !measured || len(env) != 0 {
		t.Errorf("all probes failing: %q measured=%v env=%v", got, measured, env)
	}
	calls = 0
	if _, measured := s.set("plugin"); measured || calls != 0 {
		t.Errorf("failed measurement repeated: measured=%v, %d probes", measured, calls)
	}
}
