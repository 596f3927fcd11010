package main

// The accelerators the command offers: each registers its kind of
// --device in its package's init. torch serves torch:cpu and cuda:N; its
// plugin is found by torch.SearchPath and loaded only when one of these
// devices is asked for (or --device auto probes cuda:0 on a machine with
// an NVIDIA driver).
import (
	_ "github.com/tref-lang/tref/runtime/backend/sim"
	_ "github.com/tref-lang/tref/runtime/backend/torch"
)
