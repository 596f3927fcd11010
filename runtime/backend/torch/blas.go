package torch

import (
	"bufio"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/cpu"
)

// coreTypeEnv names the variable OpenBLAS reads, once, when it loads to
// pick its kernels (a DYNAMIC_ARCH build such as Debian's).
const coreTypeEnv = "OPENBLAS_CORETYPE"

// probeEnv, set to an OpenBLAS library's path, makes a process started
// from this package's binary time that library's SGEMM and exit (see
// probeChild): the loader measures each core type in such a child, since
// OpenBLAS reads its core type only once per process.
const probeEnv = "TREF_OPENBLAS_PROBE"

// keepDefault is how much faster (as a ratio) a named core type must run
// than OpenBLAS's own choice to replace it: less is measurement noise.
const keepDefault = 1.03

// coreTypeCandidates lists the core types worth timing on this CPU, ""
// (OpenBLAS's own detection) first. Each needs the instructions its
// kernels use; OpenBLAS ignores one the CPU lacks, and the probe, which
// reports the core OpenBLAS actually chose, then drops it.
func coreTypeCandidates() []string {
	c := []string{""}
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		return c
	}
	c = append(c, "Haswell", "Zen")
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512CD {
		c = append(c, "SkylakeX")
		if cpu.X86.HasAVX512BF16 {
			c = append(c, "Cooperlake")
		}
	}
	return c
}

// probeResult is one child's measurement: the core OpenBLAS ran
// (openblas_get_corename) and the SGEMM rate in GFLOP/s.
type probeResult struct {
	Core   string
	GFLOPS float64
}

// chooseCoreType picks from measured rates (keyed by candidate, "" for
// OpenBLAS's own choice; a missing candidate failed or did not take) the
// value for OPENBLAS_CORETYPE: the fastest, unless OpenBLAS's own choice
// is within keepDefault of it, and then "" (leave it unset).
func chooseCoreType(rates map[string]float64) string {
	best, bestRate := "", 0.0
	for _, c := range slices.Sorted(maps.Keys(rates)) {
		if r := rates[c]; r > bestRate {
			best, bestRate = c, r
		}
	}
	if def, ok := rates[""]; ok && def*keepDefault >= bestRate {
		return ""
	}
	return best
}

// coreTypeChoice is what the cache remembers for one CPU and OpenBLAS.
type coreTypeChoice struct {
	CoreType string             `json:"coretype"` // "" leaves OpenBLAS's own choice
	GFLOPS   map[string]float64 `json:"gflops"`   // candidate ("" = default) -> measured rate
	Measured time.Time          `json:"measured"`
}

// coreTypeCache is the file (in the user cache dir) mapping a key from
// cacheKey to the choice measured for it.
type coreTypeCache struct {
	path string
}

func (c coreTypeCache) read() map[string]coreTypeChoice {
	m := map[string]coreTypeChoice{}
	if c.path == "" {
		return m
	}
	if b, err := os.ReadFile(c.path); err == nil {
		_ = json.Unmarshal(b, &m) // a damaged cache is measured again
	}
	return m
}

func (c coreTypeCache) lookup(key string) (coreTypeChoice, bool) {
	ch, ok := c.read()[key]
	return ch, ok
}

// store adds key's choice; a cache that cannot be written only costs a
// measurement next time.
func (c coreTypeCache) store(key string, ch coreTypeChoice) {
	if c.path == "" {
		return
	}
	m := c.read()
	m[key] = ch
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil || os.MkdirAll(filepath.Dir(c.path), 0o755) != nil {
		return
	}
	tmp := fmt.Sprintf("%s.tmp.%d", c.path, os.Getpid())
	if os.WriteFile(tmp, b, 0o644) == nil {
		_ = os.Rename(tmp, c.path)
	}
}

// cacheKey identifies a measurement: the CPU (vendor, family, model and
// name from /proc/cpuinfo, and the AVX-512 flag, since VMs often name the
// model vaguely) and the OpenBLAS library (its resolved path, which
// carries the version, and size).
func cacheKey(cpuID, lib string) string {
	size := int64(-1)
	if st, err := os.Stat(lib); err == nil {
		size = st.Size()
	}
	return fmt.Sprintf("%s|%s|%d", cpuID, lib, size)
}

// cpuIdentity describes this CPU for cacheKey.
func cpuIdentity() string {
	fields := map[string]string{}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() && s.Text() != "" { // the first processor's block
			k, v, ok := strings.Cut(s.Text(), ":")
			if ok {
				fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s/%s %s/%s/%s avx512=%v", runtime.GOARCH, fields["vendor_id"], fields["cpu family"],
		fields["model"], fields["model name"], cpu.X86.HasAVX512F)
}

// openBLASFor returns the OpenBLAS library (resolved path) that the plugin
// at path will use through libtorch, or "" when its BLAS is something else
// (Debian's reference BLAS, BLIS, MKL linked into a PyTorch wheel). It
// follows DT_NEEDED from the plugin to libtorch_cpu, then libblas.so.3
// through Debian's alternatives symlinks.
func openBLASFor(plugin string, dirs []string) string {
	seen := map[string]bool{}
	queue := []string{plugin}
	for depth := 0; depth < 3 && len(queue) > 0; depth++ {
		var next []string
		for _, lib := range queue {
			if seen[lib] {
				continue
			}
			seen[lib] = true
			f, err := elf.Open(lib)
			if err != nil {
				continue
			}
			needed, _ := f.ImportedLibraries()
			runpath, _ := f.DynString(elf.DT_RUNPATH)
			rpath, _ := f.DynString(elf.DT_RPATH)
			f.Close()
			search := append(splitPaths(append(runpath, rpath...), filepath.Dir(lib)), dirs...)
			for _, n := range needed {
				p := findLib(n, search)
				if p == "" {
					continue
				}
				if strings.HasPrefix(n, "libopenblas") {
					return p
				}
				if n == "libblas.so.3" {
					return openBLASBehind(p)
				}
				if strings.HasPrefix(n, "libtorch") {
					next = append(next, p)
				}
			}
		}
		queue = next
	}
	return ""
}

// openBLASBehind resolves a libblas.so.3 to its OpenBLAS, or "": Debian's
// openblas-{pthread,openmp,serial}/libblas.so.3 is a thin library over
// libopenblas.so.0 in the same directory.
func openBLASBehind(libblas string) string {
	name := strings.ToLower(filepath.Base(filepath.Dir(libblas)) + "/" + filepath.Base(libblas))
	if !strings.Contains(name, "openblas") {
		return ""
	}
	if p, err := filepath.EvalSymlinks(filepath.Join(filepath.Dir(libblas), "libopenblas.so.0")); err == nil {
		return p
	}
	return libblas
}

// findLib resolves a DT_NEEDED name in dirs, following symlinks.
func findLib(name string, dirs []string) string {
	for _, d := range dirs {
		if p, err := filepath.EvalSymlinks(filepath.Join(d, name)); err == nil {
			return p
		}
	}
	return ""
}

// splitPaths expands RUNPATH entries ($ORIGIN is the library's directory).
func splitPaths(entries []string, origin string) []string {
	var out []string
	for _, e := range entries {
		for _, p := range strings.Split(e, ":") {
			if p != "" {
				out = append(out, strings.ReplaceAll(p, "$ORIGIN", origin))
			}
		}
	}
	return out
}

// libraryDirs is where the dynamic loader looks, roughly in its order.
func libraryDirs() []string {
	var dirs []string
	for _, p := range strings.Split(os.Getenv("LD_LIBRARY_PATH"), ":") {
		if p != "" {
			dirs = append(dirs, p)
		}
	}
	multiarch, _ := filepath.Glob("/usr/lib/*-linux-gnu")
	for _, d := range multiarch {
		dirs = append(dirs, d, "/lib/"+filepath.Base(d))
	}
	return append(dirs, "/usr/local/lib", "/usr/lib64", "/lib64", "/usr/lib", "/lib")
}

// coreTypeProber measures one candidate core type for the OpenBLAS at lib.
type coreTypeProber func(lib, coreType string) (probeResult, error)

// measureCoreTypes times each candidate in rounds (interleaved, so a burst
// of load elsewhere does not hit one candidate only) and keeps each one's
// best rate. A candidate that fails, or that OpenBLAS replaced by another
// core (it lacks the instructions, or names the default's core), is left
// out.
func measureCoreTypes(lib string, candidates []string, rounds int, probe coreTypeProber) map[string]float64 {
	rates := map[string]float64{}
	failed := map[string]bool{}
	defCore := ""
	for r := 0; r < rounds; r++ {
		for _, c := range candidates {
			if failed[c] {
				continue
			}
			res, err := probe(lib, c)
			if err != nil || (c != "" && !strings.EqualFold(res.Core, c)) || (c != "" && strings.EqualFold(res.Core, defCore)) {
				failed[c] = true
				delete(rates, c)
				continue
			}
			if c == "" {
				defCore = res.Core
			}
			if res.GFLOPS > rates[c] {
				rates[c] = res.GFLOPS
			}
		}
	}
	return rates
}

// execProbe runs probeChild in a copy of this binary.
func execProbe(lib, coreType string) (probeResult, error) {
	exe, err := os.Executable()
	if err != nil {
		return probeResult{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	env := []string{probeEnv + "=" + lib, "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1"}
	if coreType != "" {
		env = append(env, coreTypeEnv+"="+coreType)
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != coreTypeEnv && k != "OPENBLAS_NUM_THREADS" && k != "OMP_NUM_THREADS" && k != probeEnv {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return probeResult{}, err
	}
	var res probeResult
	fs := strings.Fields(string(out))
	if len(fs) != 2 {
		return probeResult{}, fmt.Errorf("probe printed %q", out)
	}
	res.Core = fs[0]
	if res.GFLOPS, err = strconv.ParseFloat(fs[1], 64); err != nil {
		return probeResult{}, err
	}
	return res, nil
}

// coreTypeSetter holds what setOpenBLASCoreType depends on, so tests can
// replace the measurement and the cache file.
type coreTypeSetter struct {
	getenv     func(string) string
	setenv     func(string, string) error
	lib        func(plugin string) string // the plugin's OpenBLAS, "" if none
	cpuID      string
	candidates []string
	probe      coreTypeProber
	cache      coreTypeCache
}

// set names OPENBLAS_CORETYPE before libtorch loads OpenBLAS: the user's
// own value always wins; else the choice cached for this CPU and OpenBLAS;
// else it measures each candidate once (about a second) and caches the
// answer. Nothing is set when the plugin's BLAS is not OpenBLAS. It
// returns the choice ("" leaves OpenBLAS's own) and whether it measured.
func (s coreTypeSetter) set(plugin string) (string, bool) {
	if v := s.getenv(coreTypeEnv); v != "" {
		return v, false
	}
	lib := s.lib(plugin)
	if lib == "" {
		return "", false
	}
	key := cacheKey(s.cpuID, lib)
	ch, ok := s.cache.lookup(key)
	measured := false
	if !ok {
		// When no candidate runs, the empty choice (OpenBLAS's own) is
		// cached too, so that a failing probe is not paid for again.
		rates := measureCoreTypes(lib, s.candidates, 2, s.probe)
		ch = coreTypeChoice{CoreType: chooseCoreType(rates), GFLOPS: rates, Measured: time.Now().UTC()}
		s.cache.store(key, ch)
		measured = true
	}
	if ch.CoreType != "" {
		_ = s.setenv(coreTypeEnv, ch.CoreType)
	}
	return ch.CoreType, measured
}

// setOpenBLASCoreType is coreTypeSetter.set with the real environment,
// measurement and cache file.
func setOpenBLASCoreType(plugin string) {
	cache := coreTypeCache{}
	if d := cacheDir(); d != "" {
		cache.path = filepath.Join(d, "tref", "openblas-coretype.json")
	}
	coreTypeSetter{
		getenv: os.Getenv, setenv: os.Setenv,
		lib:        func(p string) string { return openBLASFor(p, libraryDirs()) },
		cpuID:      cpuIdentity(),
		candidates: coreTypeCandidates(),
		probe:      execProbe,
		cache:      cache,
	}.set(plugin)
}
