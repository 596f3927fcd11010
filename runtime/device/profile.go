package device

import (
	"fmt"
	"strings"
)

// Profile is a GPU's datasheet figures, for `tref plan --gpu NAME`: the
// simulated device with a profile's memory and cost model predicts
// whether a script fits that card and how fast it runs there.
type Profile struct {
	// Name is what --gpu takes ("rtx4090"); Title the card in full.
	Name, Title string
	// Memory is the card's memory in bytes (a datasheet's "24 GB" of
	// GPU memory is 24 GiB).
	Memory int64
	// PCIe is the host link's bandwidth per direction in bytes per
	// second: the lanes the card has, at its PCIe generation's rate
	// (gen3 x16 15.75 GB/s, gen4 x8 15.75 GB/s, gen4 x16 31.5 GB/s,
	// gen5 x16 63 GB/s: 8, 16 and 32 GT/s a lane with 128b/130b coding).
	PCIe float64
	// Flops is the FP32 rate without tensor cores in FLOP/s (tref
	// computes in float32 by default), MemBandwidth the device memory's
	// bytes per second.
	Flops, MemBandwidth float64
	// Source cites where the figures come from.
	Source string
}

// PCIe link rates per direction: lanes x GT/s x 128/130 / 8 bits.
const (
	pcie3x16 = 15.75e9
	pcie4x8  = 15.75e9
	pcie4x16 = 31.5e9
	pcie5x16 = 63e9
)

// Profiles are the cards --gpu knows, smallest memory first. Each
// figure is the vendor's datasheet value; Source names the datasheet.
var Profiles = []Profile{
	{Name: "rtx4060", Title: "NVIDIA GeForce RTX 4060 8GB", Memory: 8 << 30,
		PCIe: pcie4x8, Flops: 15.11e12, MemBandwidth: 272e9,
		// 3072 CUDA cores x 2.46 GHz boost x 2; 128-bit GDDR6 at 17 Gbps; PCIe 4.0 x8.
		Source: "nvidia.com GeForce RTX 4060 family specifications; NVIDIA Ada GPU architecture whitepaper (AD107)"},
	{Name: "rtx3060", Title: "NVIDIA GeForce RTX 3060 12GB", Memory: 12 << 30,
		PCIe: pcie4x16, Flops: 12.74e12, MemBandwidth: 360e9,
		// 3584 CUDA cores x 1.78 GHz boost x 2; 192-bit GDDR6 at 15 Gbps; PCIe 4.0 x16.
		Source: "nvidia.com GeForce RTX 3060 family specifications; NVIDIA Ampere GA102/GA106 whitepaper"},
	{Name: "rtx4060ti", Title: "NVIDIA GeForce RTX 4060 Ti 16GB", Memory: 16 << 30,
		PCIe: pcie4x8, Flops: 22.06e12, MemBandwidth: 288e9,
		// 4352 CUDA cores x 2.535 GHz boost x 2; 128-bit GDDR6 at 18 Gbps; PCIe 4.0 x8.
		Source: "nvidia.com GeForce RTX 4060 Ti family specifications; NVIDIA Ada GPU architecture whitepaper (AD106)"},
	{Name: "t4", Title: "NVIDIA T4 16GB", Memory: 16 << 30,
		PCIe: pcie3x16, Flops: 8.1e12, MemBandwidth: 320e9,
		// Datasheet: 8.1 TFLOPS FP32, 320+ GB/s GDDR6, PCIe Gen3 x16 (32 GB/s both ways).
		Source: "NVIDIA T4 Tensor Core GPU datasheet"},
	{Name: "rtx4090", Title: "NVIDIA GeForce RTX 4090 24GB", Memory: 24 << 30,
		PCIe: pcie4x16, Flops: 82.58e12, MemBandwidth: 1008e9,
		// 16384 CUDA cores x 2.52 GHz boost x 2; 384-bit GDDR6X at 21 Gbps; PCIe 4.0 x16.
		Source: "nvidia.com GeForce RTX 4090 specifications; NVIDIA Ada GPU architecture whitepaper (AD102)"},
	{Name: "a100-40gb", Title: "NVIDIA A100 40GB PCIe", Memory: 40 << 30,
		PCIe: pcie4x16, Flops: 19.5e12, MemBandwidth: 1555e9,
		// Datasheet: FP32 19.5 TFLOPS, HBM2 1,555 GB/s, PCIe Gen4 64 GB/s (both ways).
		Source: "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB PCIe column)"},
	{Name: "a100-80gb", Title: "NVIDIA A100 80GB PCIe", Memory: 80 << 30,
		PCIe: pcie4x16, Flops: 19.5e12, MemBandwidth: 1935e9,
		// Datasheet: FP32 19.5 TFLOPS, HBM2e 1,935 GB/s, PCIe Gen4 64 GB/s (both ways).
		Source: "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe column)"},
	{Name: "h100", Title: "NVIDIA H100 80GB SXM", Memory: 80 << 30,
		PCIe: pcie5x16, Flops: 67e12, MemBandwidth: 3.35e12,
		// Datasheet: FP32 67 TFLOPS, HBM3 3.35 TB/s, PCIe Gen5 128 GB/s (both ways).
		Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column)"},
}

// LookupProfile finds a profile by name (case-insensitive).
func LookupProfile(name string) (Profile, error) {
	for _, p := range Profiles {
		if strings.EqualFold(p.Name, name) {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("unknown GPU %q: known GPUs are %s (tref plan --gpu list)", name, strings.Join(ProfileNames(), ", "))
}

// ProfileNames lists the profiles' names in table order.
func ProfileNames() []string {
	names := make([]string, len(Profiles))
	for i, p := range Profiles {
		names[i] = p.Name
	}
	return names
}

// Cost is the cost model of the card: its link, compute and memory
// rates; latency and the host's rates are the defaults.
func (p Profile) Cost() Cost {
	return Cost{H2D: p.PCIe, D2H: p.PCIe, Flops: p.Flops, MemBandwidth: p.MemBandwidth}.WithDefaults()
}
