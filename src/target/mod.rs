//! What the plan may know about the machine: one description per target,
//! and every size the plan uses derived from it.
//!
//! A [`CpuTarget`] names the CPU (LLVM's name, so that the code is
//! generated for the machine the plan was made for) and gives the numbers
//! the sizes come from: vector width, vector registers, FMA, the cache
//! sizes per core, the cores. The host CPU is the default
//! ([`CpuTarget::host`]: LLVM's host CPU name and features, the caches from
//! the OS); named presets cover the common ISAs ([`CpuTarget::preset`]);
//! any field can be overridden ([`Overrides`]). [`cpu`] turns a description
//! into the plan's sizes ([`cpu::Sizes`]); [`gpu`] holds the GPU's
//! description for the GPU mapping.
//!
//! Nothing outside this module encodes a machine: a number that remains
//! in a stage is a documented model parameter.

pub mod cpu;
pub mod gpu;

use std::fmt;

/// A CPU the plan is made for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuTarget {
    /// LLVM's CPU name (`znver4`, `haswell`, `x86-64`, ...).
    pub name: String,
    /// LLVM's feature string for code generation: the host's features for
    /// the host, empty for a preset (the named CPU's own features).
    pub features: String,
    /// Width of the vector registers used for floating-point arithmetic:
    /// the width LLVM's vectorizers use for this CPU.
    pub vector_bits: u32,
    /// Width of the widest vector registers: wider than `vector_bits` on
    /// the AVX-512 CPUs whose LLVM tuning prefers 256-bit vectors
    /// ([`PREFER_256_BIT`]), where a function asks for them with the
    /// `prefer-vector-width` attribute ([`CpuTarget::wide`]).
    pub wide_vector_bits: u32,
    /// Number of architectural vector registers.
    pub vector_registers: u32,
    /// Fused multiply-add instructions exist.
    pub fma: bool,
    /// Level-1 data cache per core, in bytes.
    pub l1d_bytes: u64,
    /// Its associativity: the lines whose addresses are a multiple of
    /// `l1d_bytes / l1d_ways` apart share a set, which holds this many
    /// ([`CpuTarget::l1_sets`]).
    pub l1d_ways: u32,
    /// Level-2 cache per core, in bytes.
    pub l2_bytes: u64,
    /// The level-3 (last-level) cache's share per core, in bytes: its size
    /// over the cores that share it (0: none, or unknown).
    pub l3_bytes: u64,
    /// Cores the parallel loops may use (the host's, unless overridden).
    pub cores: u32,
    /// LLVM would vectorize loops along which accesses are strided with
    /// gathers and scatters that this CPU runs slowly: the CPUs of
    /// [`SLOW_GATHERS`], unless overridden. The plan then keeps such loops
    /// scalar where it makes them innermost for their independent
    /// iterations.
    pub slow_gathers: bool,
    /// A broadcast of one value to a whole 512-bit register takes a slot on
    /// the floating-point pipes, beside the multiplies and adds: the CPUs
    /// of [`SLOW_ZMM_BROADCASTS`], unless overridden. The bit-exact
    /// register blocks are then one vector wide, so that each broadcast
    /// value feeds one multiply, which reads it from memory itself
    /// (AVX-512's embedded broadcast) and no instruction broadcasts it
    /// ([`cpu::Sizes::of`]).
    pub slow_zmm_broadcasts: bool,
}

/// The sets of a CPU's L1 data cache, as the rows of a register tile's
/// operands see them: lines whose addresses are a multiple of `span`
/// bytes apart share a set, which holds `ways` lines of `line` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct L1Sets {
    /// The bytes after which addresses map to the same set again (the
    /// cache's size over its ways).
    pub span: i64,
    /// Lines per set.
    pub ways: i64,
    /// Bytes per line.
    pub line: i64,
}

impl L1Sets {
    /// More than [`L1Sets::ways`] of the distinct lines at `offsets`
    /// (bytes from one base) fall into one set: read together in every
    /// iteration, they evict one another (the rows of a 512x512 matrix of
    /// doubles, 4 KiB apart, all in one set of a 32 KiB 8-way cache).
    pub fn crowded(&self, offsets: &[i64]) -> bool {
        if self.line < 1 || self.span < self.line {
            return false;
        }
        let sets = self.span / self.line;
        let mut lines: Vec<i64> = offsets.iter().map(|o| o.div_euclid(self.line)).collect();
        lines.sort_unstable();
        lines.dedup();
        let mut per_set: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
        lines.iter().any(|l| {
            let n = per_set.entry(l.rem_euclid(sets)).or_insert(0);
            *n += 1;
            *n > self.ways
        })
    }
}

/// One named CPU: LLVM's name and what the plan needs of it.
struct Preset {
    name: &'static str,
    vector_bits: u32,
    wide_vector_bits: u32,
    vector_registers: u32,
    fma: bool,
    l1d_kib: u64,
    l1d_ways: u32,
    l2_kib: u64,
    /// The L3's share per core: the SKUs' L3 over their cores (Haswell's
    /// clients 8 MB for 4 cores; Zen 3 and Zen 4 32 MB per CCD of 8;
    /// Skylake-SP 1.375 MB, Ice Lake SP 1.5 MB, Sapphire Rapids 1.875 MB
    /// per core), 0 for the generic `x86-64`.
    l3_kib: u64,
}

/// The named CPUs, from their vendors' optimization manuals: generic
/// x86-64 (SSE2), AVX2 (Haswell, Zen 3) and AVX-512 (Skylake-SP, Ice Lake
/// SP, Sapphire Rapids, Zen 4). The vector width is the one LLVM's
/// vectorizers use: 256 bits on the Intel AVX-512 CPUs of
/// [`PREFER_256_BIT`], with AVX-512's 32 registers; their widest, 512
/// bits, serve the register tiles.
const PRESETS: &[Preset] = &[
    Preset {
        name: "x86-64",
        vector_bits: 128,
        wide_vector_bits: 128,
        vector_registers: 16,
        fma: false,
        l1d_kib: 32,
        l1d_ways: 8,
        l2_kib: 256,
        l3_kib: 0,
    },
    Preset {
        name: "haswell",
        vector_bits: 256,
        wide_vector_bits: 256,
        vector_registers: 16,
        fma: true,
        l1d_kib: 32,
        l1d_ways: 8,
        l2_kib: 256,
        l3_kib: 2048,
    },
    Preset {
        name: "znver3",
        vector_bits: 256,
        wide_vector_bits: 256,
        vector_registers: 16,
        fma: true,
        l1d_kib: 32,
        l1d_ways: 8,
        l2_kib: 512,
        l3_kib: 4096,
    },
    Preset {
        name: "skylake-avx512",
        vector_bits: 256,
        wide_vector_bits: 512,
        vector_registers: 32,
        fma: true,
        l1d_kib: 32,
        l1d_ways: 8,
        l2_kib: 1024,
        l3_kib: 1408,
    },
    Preset {
        name: "icelake-server",
        vector_bits: 256,
        wide_vector_bits: 512,
        vector_registers: 32,
        fma: true,
        l1d_kib: 48,
        l1d_ways: 12,
        l2_kib: 1280,
        l3_kib: 1536,
    },
    Preset {
        name: "sapphirerapids",
        vector_bits: 256,
        wide_vector_bits: 512,
        vector_registers: 32,
        fma: true,
        l1d_kib: 48,
        l1d_ways: 12,
        l2_kib: 2048,
        l3_kib: 1920,
    },
    Preset {
        name: "znver4",
        vector_bits: 512,
        wide_vector_bits: 512,
        vector_registers: 32,
        fma: true,
        l1d_kib: 32,
        l1d_ways: 8,
        l2_kib: 1024,
        l3_kib: 4096,
    },
];

/// The AVX-512 CPUs whose LLVM tuning prefers 256-bit vectors
/// (`TuningPrefer256Bit` in LLVM's `X86.td`: 512-bit instructions lower
/// these cores' clock): LLVM vectorizes for them with ymm registers (32 of
/// them), so the plan sizes its vector loops for 256-bit vectors, except in
/// the plans with register tiles ([`CpuTarget::wide`]): their functions ask
/// for zmm (`prefer-vector-width`). Without that attribute, blocks sized
/// for zmm would need twice the ymm accumulators (gemm at LARGE on
/// `skylake-avx512`: 69 spills and reloads in its loops with 8x16 blocks).
pub const PREFER_256_BIT: &[&str] = &[
    "skylake-avx512",
    "cascadelake",
    "cooperlake",
    "cannonlake",
    "icelake-client",
    "icelake-server",
    "rocketlake",
    "tigerlake",
    "sapphirerapids",
    "emeraldrapids",
    "graniterapids",
    "graniterapids-d",
    "x86-64-v4",
];

/// The AVX-512 CPUs whose gathers and scatters are slower than the scalar
/// loads and stores they replace: AMD's Zen 4 runs them as long sequences
/// of micro-ops. LLVM's cost model treats every AVX-512 gather and scatter
/// as cheap enough to vectorize a strided loop with them; adi at LARGE on
/// a Zen 4 VM (LLVM `znver4`), the same LLVM IR compiled with and without
/// vectorization: 5.46 s against 3.71 s, most of the vectorized kernel's
/// time on its 44 gathers and scatters ([`CpuTarget::slow_gathers`], which
/// the option `gathers` overrides). Not
/// Zen 5 (unmeasured) nor the Intel CPUs, which LLVM tunes as having fast
/// gathers.
pub const SLOW_GATHERS: &[&str] = &["znver4"];

/// The AVX-512 CPUs on which a broadcast to a 512-bit register
/// (`vbroadcastsd zmm`) takes a slot on the floating-point pipes: AMD's Zen
/// 4 runs each 512-bit operation as two 256-bit halves, its multiplies on
/// two pipes and its adds on two others, so separate multiplies and adds
/// could reach the FMA peak, but every such broadcast takes a slot on those
/// pipes too. `bench/microkernel.c` on a Zen 4 VM (LLVM `znver4`), one
/// core, GFLOP/s: an 8x16 block (8 broadcasts per 16 multiplies) 40, a
/// 16x8 block (each value read by its multiply's embedded broadcast) 58,
/// the FMA peak 58; gemm at LARGE, 2 threads, 0.0355 s against 0.0310 s
/// ([`CpuTarget::slow_zmm_broadcasts`], which the option `broadcasts`
/// overrides). Not Zen 5 (unmeasured) nor the Intel CPUs, whose
/// broadcasts run on the load ports.
pub const SLOW_ZMM_BROADCASTS: &[&str] = &["znver4"];

/// Fields given on the command line in place of the target's own (`None`
/// or zero: the target's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Vector register width in bits.
    pub vector_bits: Option<u32>,
    /// Number of vector registers.
    pub vector_registers: Option<u32>,
    /// L1 data cache per core, in KiB.
    pub l1d_kib: Option<u64>,
    /// L2 cache per core, in KiB.
    pub l2_kib: Option<u64>,
    /// The L3 cache's share per core, in KiB.
    pub l3_kib: Option<u64>,
    /// Cores.
    pub cores: Option<u32>,
    /// Whether gathers and scatters are slow.
    pub slow_gathers: Option<bool>,
    /// Whether broadcasts to 512-bit registers are slow.
    pub slow_zmm_broadcasts: Option<bool>,
}

/// A target that cannot be made. A user error: an unknown CPU name or a
/// field out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// The CPU name is neither `host` nor a preset.
    #[error("unknown CPU '{0}' (known: host, {known})", known = preset_names().join(", "))]
    UnknownCpu(String),
    /// A field is out of its range.
    #[error("{field}={value}: {reason}")]
    Field {
        /// The option's name.
        field: &'static str,
        /// The value given.
        value: u64,
        /// Why it is refused.
        reason: &'static str,
    },
}

/// The names [`CpuTarget::preset`] knows.
pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.name).collect()
}

/// Cache sizes used when the OS does not report them (per core).
const FALLBACK_L1D_KIB: u64 = 32;
/// See [`FALLBACK_L1D_KIB`].
const FALLBACK_L2_KIB: u64 = 256;
/// See [`FALLBACK_L1D_KIB`]: the L1 data caches of x86 cores of 32 KiB
/// are 8-way (Intel's since Sandy Bridge, AMD's since Zen).
const FALLBACK_L1D_WAYS: u32 = 8;

/// Bytes per cache line (x86).
pub const LINE_BYTES: u64 = 64;

impl CpuTarget {
    /// The named CPU `name` (`host` for the host), with the host's cores.
    pub fn named(name: &str) -> Result<CpuTarget, TargetError> {
        if name == "host" || name.is_empty() {
            return Ok(CpuTarget::host());
        }
        CpuTarget::preset(name).ok_or_else(|| TargetError::UnknownCpu(name.to_string()))
    }

    /// A preset by LLVM CPU name, with the host's cores.
    pub fn preset(name: &str) -> Option<CpuTarget> {
        let p = PRESETS.iter().find(|p| p.name == name)?;
        Some(CpuTarget {
            name: p.name.to_string(),
            features: String::new(),
            vector_bits: p.vector_bits,
            wide_vector_bits: p.wide_vector_bits,
            vector_registers: p.vector_registers,
            fma: p.fma,
            l1d_bytes: p.l1d_kib * 1024,
            l1d_ways: p.l1d_ways,
            l2_bytes: p.l2_kib * 1024,
            l3_bytes: p.l3_kib * 1024,
            cores: host_cores(),
            slow_gathers: SLOW_GATHERS.contains(&p.name),
            slow_zmm_broadcasts: SLOW_ZMM_BROADCASTS.contains(&p.name),
        })
    }

    /// The host: LLVM's host CPU name and features (the vector width, the
    /// register count and FMA follow from the features), the cache sizes
    /// from the OS (Linux's sysfs; else the preset of the same name, else
    /// 32 KiB and 256 KiB), and the cores the process may use.
    pub fn host() -> CpuTarget {
        let name = inkwell::targets::TargetMachine::get_host_cpu_name()
            .to_string_lossy()
            .into_owned();
        let features = inkwell::targets::TargetMachine::get_host_cpu_features()
            .to_string_lossy()
            .into_owned();
        let t = CpuTarget::from_features(&name, &features, host_caches());
        CpuTarget {
            l1d_ways: host_l1d_ways().unwrap_or(t.l1d_ways),
            l3_bytes: host_l3_share().unwrap_or(t.l3_bytes),
            ..t
        }
    }

    /// A target for LLVM CPU `name` with feature string `features` (`+avx2,
    /// -avx512f, ...`) and caches `(l1d, l2)` in bytes when known.
    pub fn from_features(name: &str, features: &str, caches: Option<(u64, u64)>) -> CpuTarget {
        let has = |f: &str| features.split(',').any(|x| x.strip_prefix('+') == Some(f));
        let (vector_bits, wide_vector_bits, vector_registers) = if has("avx512f") {
            (
                if PREFER_256_BIT.contains(&name) {
                    256
                } else {
                    512
                },
                512,
                32,
            )
        } else if has("avx") {
            (256, 256, 16)
        } else {
            (128, 128, 16)
        };
        let preset = PRESETS.iter().find(|p| p.name == name);
        let (l1d, l2) = caches.unwrap_or_else(|| match preset {
            Some(p) => (p.l1d_kib * 1024, p.l2_kib * 1024),
            None => (FALLBACK_L1D_KIB * 1024, FALLBACK_L2_KIB * 1024),
        });
        CpuTarget {
            name: name.to_string(),
            features: features.to_string(),
            vector_bits,
            wide_vector_bits,
            vector_registers,
            fma: has("fma"),
            l1d_bytes: l1d,
            l1d_ways: preset.map_or(FALLBACK_L1D_WAYS, |p| p.l1d_ways),
            l2_bytes: l2,
            l3_bytes: preset.map_or(0, |p| p.l3_kib * 1024),
            cores: host_cores(),
            slow_gathers: SLOW_GATHERS.contains(&name),
            slow_zmm_broadcasts: SLOW_ZMM_BROADCASTS.contains(&name),
        }
    }

    /// It has AVX-512 DQ and VL, whose `vrange` instructions give exact
    /// maxima and minima ([`crate::lower::minmax`]): from the features,
    /// or for a preset (no features), its 512-bit registers (every AVX-512
    /// preset has both).
    pub fn has_range(&self) -> bool {
        if self.features.is_empty() {
            return self.wide_vector_bits == 512;
        }
        let has = |f: &str| {
            self.features
                .split(',')
                .any(|x| x.strip_prefix('+') == Some(f))
        };
        has("avx512dq") && has("avx512vl")
    }

    /// Its L1 data cache's sets ([`L1Sets`]).
    pub fn l1_sets(&self) -> L1Sets {
        let ways = i64::from(self.l1d_ways.max(1));
        L1Sets {
            span: i64::try_from(self.l1d_bytes).unwrap_or(i64::MAX) / ways,
            ways,
            line: LINE_BYTES as i64,
        }
    }

    /// This target with the fields of `o` that are given.
    pub fn with(mut self, o: &Overrides) -> Result<CpuTarget, TargetError> {
        if let Some(b) = o.vector_bits {
            if ![64, 128, 256, 512, 1024].contains(&b) {
                return Err(TargetError::Field {
                    field: "vector-bits",
                    value: b.into(),
                    reason: "vector registers are 64, 128, 256, 512 or 1024 bits wide",
                });
            }
            // An explicit width is taken as given, for every plan.
            self.vector_bits = b;
            self.wide_vector_bits = b;
        }
        if let Some(r) = o.vector_registers {
            if !(4..=256).contains(&r) {
                return Err(TargetError::Field {
                    field: "vector-registers",
                    value: r.into(),
                    reason: "between 4 and 256 vector registers",
                });
            }
            self.vector_registers = r;
        }
        for (given, field, slot) in [
            (o.l1d_kib, "l1-cache", &mut self.l1d_bytes),
            (o.l2_kib, "l2-cache", &mut self.l2_bytes),
            (o.l3_kib, "l3-cache", &mut self.l3_bytes),
        ] {
            if let Some(k) = given {
                if !(1..=1 << 20).contains(&k) {
                    return Err(TargetError::Field {
                        field,
                        value: k,
                        reason: "cache sizes are between 1 KiB and 1 GiB",
                    });
                }
                *slot = k * 1024;
            }
        }
        if let Some(c) = o.cores {
            self.cores = c.max(1);
        }
        if let Some(g) = o.slow_gathers {
            self.slow_gathers = g;
        }
        if let Some(b) = o.slow_zmm_broadcasts {
            self.slow_zmm_broadcasts = b;
        }
        Ok(self)
    }

    /// This target with its widest vector registers, when they are wider
    /// than the ones LLVM's tuning uses (`None` elsewhere): the plans with
    /// register tiles, whose blocks keep the multiply-adds' operands in
    /// registers and so run at the arithmetic units' throughput, are made
    /// for it, and their functions carry `prefer-vector-width` (gemm at
    /// LARGE on an Emerald Rapids VM, 2 threads: 0.033-0.044 s with 8x16
    /// blocks of zmm against 0.045-0.064 s with 8x8 of ymm; 0.021-0.032 s
    /// against 0.049-0.052 s with `contract`). The other plans keep LLVM's
    /// width, chosen because 512-bit instructions lower these cores'
    /// clock for the code around them.
    pub fn wide(&self) -> Option<CpuTarget> {
        (self.wide_vector_bits > self.vector_bits).then(|| CpuTarget {
            vector_bits: self.wide_vector_bits,
            ..self.clone()
        })
    }

    /// Vector lanes of `elem_bytes`-byte elements (at least 1).
    pub fn lanes(&self, elem_bytes: u32) -> i64 {
        i64::from((self.vector_bits / 8 / elem_bytes.max(1)).max(1))
    }
}

impl fmt::Display for CpuTarget {
    /// `znver4 (512-bit vectors, 32 registers, FMA, slow gathers, slow
    /// 512-bit broadcasts, L1d 32 KiB, L2 1024 KiB, 2 cores)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}-bit vectors, {} registers, {}{}{}L1d {} KiB, L2 {} KiB, {} core{})",
            self.name,
            self.vector_bits,
            self.vector_registers,
            if self.fma { "FMA, " } else { "" },
            if self.slow_gathers {
                "slow gathers, "
            } else {
                ""
            },
            if self.slow_zmm_broadcasts {
                "slow 512-bit broadcasts, "
            } else {
                ""
            },
            self.l1d_bytes / 1024,
            self.l2_bytes / 1024,
            self.cores,
            if self.cores == 1 { "" } else { "s" }
        )
    }
}

/// The cores this process may run on (at least 1).
pub fn host_cores() -> u32 {
    std::thread::available_parallelism()
        .map(|n| u32::try_from(n.get()).unwrap_or(u32::MAX))
        .unwrap_or(1)
}

/// File `file` of the host's cache entry `index` in Linux's sysfs
/// (`/sys/devices/system/cpu/cpu0/cache/index{index}/{file}`), trimmed.
fn sysfs_cache(index: usize, file: &str) -> Option<String> {
    let path = format!("/sys/devices/system/cpu/cpu0/cache/index{index}/{file}");
    std::fs::read_to_string(path)
        .ok()
        .map(|t| t.trim().to_string())
}

/// The host's L1 data and L2 cache sizes per core, in bytes, from Linux's
/// `/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}`.
fn host_caches() -> Option<(u64, u64)> {
    let mut l1 = None;
    let mut l2 = None;
    for i in 0..8 {
        let read = |f: &str| sysfs_cache(i, f);
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
        else {
            continue;
        };
        let Some(bytes) = parse_size(&size) else {
            continue;
        };
        match (level.as_str(), kind.as_str()) {
            ("1", "Data" | "Unified") => l1 = Some(bytes),
            ("2", "Data" | "Unified") => l2 = Some(bytes),
            _ => {}
        }
    }
    Some((l1?, l2?))
}

/// The host's L3 cache's share per core, in bytes: its size over the
/// CPUs that share it, from Linux's
/// `/sys/devices/system/cpu/cpu0/cache/index*/{level,size,shared_cpu_list}`.
fn host_l3_share() -> Option<u64> {
    (0..8).find_map(|i| {
        let read = |f: &str| sysfs_cache(i, f);
        if read("level")? != "3" {
            return None;
        }
        let bytes = parse_size(&read("size")?)?;
        let sharing = cpu_list_len(&read("shared_cpu_list")?)?;
        (sharing > 0).then(|| bytes / sharing)
    })
}

/// The number of CPUs in a Linux CPU list (`0-3,8,10-11` → 7).
fn cpu_list_len(list: &str) -> Option<u64> {
    list.split(',').try_fold(0u64, |n, part| {
        let count = match part.split_once('-') {
            Some((a, b)) => {
                b.trim()
                    .parse::<u64>()
                    .ok()?
                    .checked_sub(a.trim().parse().ok()?)?
                    + 1
            }
            None => {
                part.trim().parse::<u64>().ok()?;
                1
            }
        };
        n.checked_add(count)
    })
}

/// The host's L1 data cache's associativity, from Linux's
/// `/sys/devices/system/cpu/cpu0/cache/index*/ways_of_associativity`.
fn host_l1d_ways() -> Option<u32> {
    (0..8).find_map(|i| {
        let read = |f: &str| sysfs_cache(i, f);
        let data = read("level")? == "1" && ["Data", "Unified"].contains(&read("type")?.as_str());
        let ways: u32 = read("ways_of_associativity")?.parse().ok()?;
        (data && ways > 0).then_some(ways)
    })
}

/// `32K` → 32768, `1M` → 1048576, `512` → 512.
fn parse_size(s: &str) -> Option<u64> {
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let n: u64 = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_count_their_cpus() {
        assert_eq!(cpu_list_len("0-1"), Some(2));
        assert_eq!(cpu_list_len("0-3,8,10-11"), Some(7));
        assert_eq!(cpu_list_len("5"), Some(1));
        assert_eq!(cpu_list_len("3-1"), None);
        assert_eq!(cpu_list_len("x"), None);
    }

    #[test]
    fn presets_give_their_l3_share_per_core() {
        let zen4 = CpuTarget::preset("znver4").expect("a preset");
        assert_eq!(zen4.l3_bytes, 4 << 20);
        let generic = CpuTarget::preset("x86-64").expect("a preset");
        assert_eq!(generic.l3_bytes, 0);
    }

    /// Rows 4 KiB apart all map to one set of a 32 KiB 8-way cache: 8
    /// fit, 9 do not; 4 KiB + one line apart, each row its own set.
    #[test]
    fn rows_a_multiple_of_the_set_span_apart_crowd_one_set() {
        let l1 = CpuTarget::preset("znver4").expect("a preset").l1_sets();
        assert_eq!((l1.span, l1.ways, l1.line), (4096, 8, 64));
        let rows = |n: i64, step: i64| -> Vec<i64> { (0..n).map(|r| r * step).collect() };
        assert!(!l1.crowded(&rows(8, 4096)));
        assert!(l1.crowded(&rows(9, 4096)));
        assert!(!l1.crowded(&rows(64, 4096 + 64)));
        // 2 KiB apart: two sets, 8 lines each for 16 rows.
        assert!(!l1.crowded(&rows(16, 2048)));
        assert!(l1.crowded(&rows(17, 2048)));
        // Offsets within one line are one line.
        assert!(!l1.crowded(&[0, 8, 16, 24, 32, 40, 48, 56, 4096]));
        // Ice Lake's 48 KiB, 12 ways: the same 4 KiB span, 12 rows fit.
        let icx = CpuTarget::preset("icelake-server")
            .expect("a preset")
            .l1_sets();
        assert_eq!((icx.span, icx.ways), (4096, 12));
        assert!(!icx.crowded(&rows(12, 4096)));
        assert!(icx.crowded(&rows(13, 4096)));
    }

    #[test]
    fn features_give_the_vector_isa() {
        let avx512 = CpuTarget::from_features("znver4", "+avx2,+avx512f,+fma,+avx", None);
        assert_eq!(
            (avx512.vector_bits, avx512.vector_registers, avx512.fma),
            (512, 32, true)
        );
        assert_eq!((avx512.l1d_bytes, avx512.l2_bytes), (32 << 10, 1 << 20));
        let avx2 = CpuTarget::from_features("znver3", "+avx2,-avx512f,+fma,+avx", Some((1, 2)));
        assert_eq!((avx2.vector_bits, avx2.vector_registers), (256, 16));
        assert_eq!((avx2.l1d_bytes, avx2.l2_bytes), (1, 2));
        let skx = CpuTarget::from_features("skylake-avx512", "+avx2,+avx512f,+fma,+avx", None);
        assert_eq!((skx.vector_bits, skx.vector_registers), (256, 32));
        let sse = CpuTarget::from_features("mystery", "+sse2,-avx,-fma", None);
        assert_eq!(
            (sse.vector_bits, sse.fma, sse.l2_bytes),
            (128, false, 256 << 10)
        );
    }

    /// `vrange` needs AVX-512 DQ and VL: the features say so, or a
    /// preset's 512-bit registers.
    #[test]
    fn range_instructions_from_features_or_preset() {
        let t = |f: &str| CpuTarget::from_features("x", f, None).has_range();
        assert!(t("+avx512f,+avx512dq,+avx512vl,+fma"));
        assert!(!t("+avx512f,-avx512dq,+avx512vl"));
        assert!(!t("+avx512f,+avx512dq"));
        assert!(!t("+avx2,+fma"));
        for (name, has) in [
            ("znver4", true),
            ("skylake-avx512", true),
            ("haswell", false),
        ] {
            assert_eq!(CpuTarget::preset(name).unwrap().has_range(), has, "{name}");
        }
    }

    #[test]
    fn widest_vectors_where_llvm_prefers_narrower() {
        // LLVM tunes emeraldrapids for ymm: the plan's width is 256 bits,
        // its register tiles' 512.
        let spr = CpuTarget::from_features("emeraldrapids", "+avx2,+avx512f,+fma,+avx", None);
        assert_eq!((spr.vector_bits, spr.wide_vector_bits), (256, 512));
        let wide = spr.wide().expect("zmm for the register tiles");
        assert_eq!((wide.vector_bits, wide.lanes(8)), (512, 8));
        assert_eq!(wide.wide(), None);
        // Where LLVM uses the widest registers already, or there are no
        // wider ones, nothing to widen.
        for cpu in ["znver4", "znver3", "haswell", "x86-64"] {
            let t = CpuTarget::named(cpu).expect("a preset");
            assert_eq!(t.wide(), None, "{cpu}");
        }
        for cpu in ["skylake-avx512", "icelake-server", "sapphirerapids"] {
            let t = CpuTarget::named(cpu).expect("a preset");
            assert_eq!(t.wide().map(|w| w.vector_bits), Some(512), "{cpu}");
        }
        // An explicit width is taken as given.
        let given = CpuTarget::named("skylake-avx512").and_then(|t| {
            t.with(&Overrides {
                vector_bits: Some(256),
                ..Default::default()
            })
        });
        assert_eq!(given.expect("skylake-avx512, 256 bits").wide(), None);
    }

    #[test]
    fn presets_and_overrides() {
        assert!(CpuTarget::named("pentium-9").is_err());
        let t = CpuTarget::named("haswell").and_then(|t| {
            t.with(&Overrides {
                vector_registers: Some(32),
                l2_kib: Some(2048),
                cores: Some(0),
                slow_gathers: Some(true),
                ..Default::default()
            })
        });
        let t = t.expect("haswell with overrides");
        assert_eq!(
            (
                t.vector_bits,
                t.vector_registers,
                t.l2_bytes,
                t.cores,
                t.slow_gathers
            ),
            (256, 32, 2 << 20, 1, true)
        );
        // Slow gathers from the name, for a preset and for a host of that
        // name alike.
        let zen4 = CpuTarget::named("znver4").expect("a preset");
        assert!(zen4.slow_gathers);
        assert!(CpuTarget::from_features("znver4", "+avx512f,+fma", None).slow_gathers);
        assert!(!CpuTarget::from_features("znver5", "+avx512f,+fma", None).slow_gathers);
        let fast = zen4.with(&Overrides {
            slow_gathers: Some(false),
            ..Default::default()
        });
        assert!(!fast.expect("znver4, fast gathers").slow_gathers);
        let bad = CpuTarget::named("znver4").and_then(|t| {
            t.with(&Overrides {
                vector_bits: Some(300),
                ..Default::default()
            })
        });
        assert!(matches!(
            bad,
            Err(TargetError::Field {
                field: "vector-bits",
                ..
            })
        ));
        for name in preset_names() {
            assert!(CpuTarget::preset(name).is_some());
        }
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("32K"), Some(32768));
        assert_eq!(parse_size("1024K"), Some(1 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("x"), None);
    }
}
